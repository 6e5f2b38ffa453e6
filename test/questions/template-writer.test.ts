import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain, type ErIndex } from '../../generator/er-model/er-index.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { PAPER_RETAIL } from '../../generator/suites/paper-retail.ts';
import { randomQuery } from '../../generator/query/random-query.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { createRng } from '../../generator/common/rng.ts';
import { paraphraseCount, requiredMentions, writeTemplateQuestion } from '../../generator/questions/template-writer.ts';
import { TEMPLATE_STYLES } from '../../generator/records/question-record.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';
import { englishFaults, expectedFacts, expectedNaturalFacts, machinePhrases } from '../helpers/question-checks.ts';
import { sized } from '../helpers/tiers.ts';

// 200 per domain by default; 1,000, the acceptance figure, in the acceptance tier; EQUISQL_QUESTION_QUERIES=N draws another number.
const COUNT = sized('EQUISQL_QUESTION_QUERIES', 200, 1000);
const PARAPHRASES = 2;

function checkQuery(index: ErIndex, query: Query, seed: string, label: string): void {
  const facts = expectedFacts(index, query);
  const natural = expectedNaturalFacts(index, query);
  const mentions = requiredMentions(index, query);
  for (const style of TEMPLATE_STYLES) {
    const seen = new Set<string>();
    for (let k = 0; k < PARAPHRASES; k++) {
      const w = writeTemplateQuestion(index, query, style, k, seed);
      const text = `${w.question} ${w.evidence}`;
      const where = `${label} ${style}#${k}: ${w.question} [${w.evidence}]\n${JSON.stringify(query)}`;
      expect(englishFaults(w.question), where).toEqual([]);
      if (w.evidence) expect(englishFaults(w.evidence), where).toEqual([]);
      if (style === 'natural') {
        // Question and evidence together: each choice the register's defaults leave open is stated.
        for (const f of natural) expect(f.test(text), `${f.construct} not stated — ${where}`).toBe(true);
        expect(machinePhrases(w.question), where).toEqual([]);
        if (paraphraseCount(style) > 1) expect(seen.has(w.question), `paraphrases repeat — ${where}`).toBe(false);
        seen.add(w.question);
        continue;
      }
      for (const f of facts) expect(f.test(text), `${f.construct} not stated — ${where}`).toBe(true);
      for (const m of mentions) {
        const ok = m.anyOf.some((all) => all.every((s) => text.toLowerCase().includes(s.toLowerCase())));
        expect(ok, `${m.construct} not stated — ${where}`).toBe(true);
      }
      if (style === 'implicit' && query.kind === 'select' && query.where) expect(w.evidence, where).not.toBe('');
      if (paraphraseCount(style) > 1) expect(seen.has(w.question), `paraphrases repeat — ${where}`).toBe(false);
      seen.add(w.question);
    }
  }
}

describe('template writer', () => {
  it('flags bad English (the checks themselves can fail)', () => {
    expect(englishFaults('Return the the id.')).toContain('"the the"');
    expect(englishFaults('Return a id of an creator.')).toHaveLength(2);
    expect(englishFaults('Return {outputs}.')).toContain('placeholder');
    expect(englishFaults('Return the avg_viewers.')).toContain('raw identifier');
    expect(englishFaults('Return the id where the name is "a_b b b".')).toEqual([]);
  });

  it('writes every paper question in every style, stating what decides its rows', () => {
    for (const [domain, suite] of [
      ['social_media', PAPER_SOCIAL_MEDIA],
      ['retail', PAPER_RETAIL],
    ] as const) {
      const index = indexDomain(BUILT_IN_DOMAINS[domain]!);
      for (const q of suite) checkQuery(index, q.query, q.id, `${domain} ${q.id}`);
    }
  });

  it('states the tie-break, zero counts and subtype scope of a paper top-50 question', () => {
    const index = indexDomain(BUILT_IN_DOMAINS.social_media!);
    const q01 = PAPER_SOCIAL_MEDIA.find((q) => q.id === 'q01')!;
    const w = writeTemplateQuestion(index, q01.query, 'precise', 0, 'q01');
    expect(w.question).toMatch(/streamers included/u);
    expect(w.question).toMatch(/every creator \(streamers included\), including those without any channel/u);
    expect(w.question).toMatch(
      /number of channels owned by the creator \(0 when there are none\) in descending order, ties broken by the id of the creator in ascending order/u,
    );
    expect(w.question).not.toMatch(/in the group|rows in/u);
    const short = writeTemplateQuestion(index, q01.query, 'concise', 0, 'q01').question;
    expect(short).toMatch(/streamers included/u);
    expect(short).toMatch(/\(0 if none\) descending, ties by the id of the creator ascending, top 50/u);
    // The precise style says "the id of every creator" too now, so the margin is smaller than it was.
    expect(short.length).toBeLessThan(w.question.length * 0.8);
    expect(w.question).toMatch(/first 50 rows/u);
  });

  for (const domain of ['social_media', 'retail']) {
    it(`writes ${COUNT} random ${domain} queries in every style as checked English`, () => {
      const d = BUILT_IN_DOMAINS[domain]!;
      const index = indexDomain(d);
      const instance = generateInstance(d, { seed: 1, scale: 'tiny', profile: 'default' });
      const rng = createRng(`questions/${domain}`);
      for (let i = 0; i < COUNT; i++)
        checkQuery(index, randomQuery(index, instance, rng.fork(String(i))), `r${i}`, `${domain} r${i}`);
    }, 600_000);
  }

  it('makes the styles differ: concise much shorter than precise, conversational with a scenario, no two styles alike', () => {
    const lengths: Record<string, number> = {};
    for (const [domain, suite] of [
      ['social_media', PAPER_SOCIAL_MEDIA],
      ['retail', PAPER_RETAIL],
    ] as const) {
      const index = indexDomain(BUILT_IN_DOMAINS[domain]!);
      for (const q of suite) {
        const texts = TEMPLATE_STYLES.map((style) => writeTemplateQuestion(index, q.query, style, 0, q.id).question);
        expect(new Set(texts).size, `${domain} ${q.id}`).toBe(TEMPLATE_STYLES.length);
        TEMPLATE_STYLES.forEach((style, i) => (lengths[style] = (lengths[style] ?? 0) + texts[i]!.length));
        // A scenario sentence, then the ask.
        expect(texts[TEMPLATE_STYLES.indexOf('conversational')], `${domain} ${q.id}`).toMatch(
          /^[^?]*(review|audit|figures)[^.?]*[.,] /u,
        );
        for (const t of texts)
          expect(t, `${domain} ${q.id}`).not.toMatch(/\bin the group\b|\bnumber of rows\b|\brows in\b/u);
      }
    }
    expect(lengths['concise']!).toBeLessThan(lengths['precise']! * 0.85);
  });

  it('shortens only the clauses its rewrites name: every quoted value and every other word of the precise question stays', () => {
    const fragments = JSON.parse(readFileSync(join(REPO_ROOT, 'templates/question-fragments.json'), 'utf8')) as {
      conciseRewrites: [string, string][];
    };
    const wordsOf = (t: string) =>
      new Set(
        t
          .replace(/"[^"]*"/gu, ' ')
          .toLowerCase()
          .match(/[a-z]+/gu) ?? [],
      );
    // A word may go only where a rewrite's own pattern names it and its replacement does not.
    const droppable = new Set(
      fragments.conciseRewrites.flatMap(([pattern, replacement]) => {
        const kept = wordsOf(replacement);
        return [...wordsOf(pattern.replace(/\\[a-z]/gu, ' '))].filter((w) => !kept.has(w));
      }),
    );
    const literals = (t: string) => (t.match(/"[^"]*"/gu) ?? []).sort();
    for (const domain of ['social_media', 'retail']) {
      const d = BUILT_IN_DOMAINS[domain]!;
      const index = indexDomain(d);
      const instance = generateInstance(d, { seed: 1, scale: 'tiny', profile: 'default' });
      const rng = createRng(`questions/${domain}`);
      for (let i = 0; i < Math.min(COUNT, 300); i++) {
        const query = randomQuery(index, instance, rng.fork(String(i)));
        // Paraphrase 0 of both styles opens with the same words ("Return …" and "… for"), so the sentences compare; "for all creators" is "every creator" in the concise frame.
        const full = writeTemplateQuestion(index, query, 'precise', 0, `r${i}`).question;
        const short = writeTemplateQuestion(index, query, 'concise', 0, `r${i}`).question;
        expect(literals(short), `${domain} r${i}: ${short}`).toEqual(literals(full));
        const shortWords = wordsOf(short);
        const lost = [...wordsOf(full)].filter(
          (w) =>
            !shortWords.has(w) &&
            !shortWords.has(w.replace(/s$/u, '')) &&
            !shortWords.has(w.replace(/es$/u, '')) &&
            !shortWords.has(w.replace(/ies$/u, 'y')) &&
            !droppable.has(w) &&
            !['return', 'retrieve', 'report', 'considering', 'taken', 'over', 'all'].includes(w),
        );
        expect(lost, `${domain} r${i}:\n${full}\n${short}`).toEqual([]);
      }
    }
  });

  it('gives the same question for the same query and seed, and another for another paraphrase', () => {
    const index = indexDomain(BUILT_IN_DOMAINS.retail!);
    const q = PAPER_RETAIL[0]!.query;
    expect(writeTemplateQuestion(index, q, 'imperative', 1, 'g')).toEqual(
      writeTemplateQuestion(index, q, 'imperative', 1, 'g'),
    );
    expect(writeTemplateQuestion(index, q, 'imperative', 1, 'g').question).not.toBe(
      writeTemplateQuestion(index, q, 'imperative', 2, 'g').question,
    );
  });
});
