import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleSkeletons } from '../../generator/grammar/pcfg-sampler.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { extractSkeleton } from '../../generator/grammar/skeleton-extractor.ts';
import { instantiateSkeleton } from '../../generator/grammar/skeleton-instantiator.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { repoRoot } from '../sql/corpus-path.ts';

describe('round trip of sampled skeletons', () => {
  it('every one of 10,000 skeletons sampled from grammars/spider.pcfg prints as SQL that parses back into the same skeleton', () => {
    const grammar = parseGrammar(readFileSync(resolve(repoRoot, 'grammars/spider.pcfg'), 'utf8'), 'grammars/spider.pcfg');
    const { samples } = sampleSkeletons(grammar, { n: 10_000, seed: 'round-trip', tail: 0.1 });
    expect(samples).toHaveLength(10_000);
    const failures: string[] = [];
    for (const sample of samples) {
      const sql = instantiateSkeleton(sample.tokens);
      try {
        const back = extractSkeleton(parseSql(sql, { dialect: 'postgresql' })).text;
        if (back !== sample.skeleton) failures.push(`${sample.skeleton}\n  came back as ${back}`);
      } catch (error) {
        failures.push(`${sql}\n  ${(error as Error).message}`);
      }
    }
    expect(failures.slice(0, 3)).toEqual([]);
  });
});
