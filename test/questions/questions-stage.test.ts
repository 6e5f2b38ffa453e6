// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  truncateSync,
  copyFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { domainToJson } from '../../generator/er-model/domain-json.ts';
import { randomQuery } from '../../generator/query/random-query.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { createRng } from '../../generator/common/rng.ts';
import { sha256, stableStringify } from '../../generator/common/hash.ts';
import { serializeGroup, type GroupRecord } from '../../generator/records/group-record.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import type { QuestionRecord } from '../../generator/records/question-record.ts';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';

// The questions stage reads only the groups' queries, ids and sources; the other fields of
// these group lines are filled plainly so the files are valid group records.
const GROUPS = Number(process.env.EQUISQL_QUESTION_STAGE_GROUPS ?? 1000);

function group(query: GroupRecord['query'], candidate: number, source?: GroupRecord['source']): GroupRecord {
  return {
    group_id: sha256(stableStringify(query)),
    dataset: 'social_media',
    candidate,
    query,
    ordered: (query.orderBy?.length ?? 0) > 0,
    variants: {
      full_cti: { sql: `SELECT ${candidate} AS n`, row_count: 1, result_hash: 'h' },
      fk_only: { sql: `SELECT ${candidate} AS m`, row_count: 1, result_hash: 'h' },
    },
    skeleton: 'SELECT _',
    long_tail: false,
    reference_variant: 'full_cti',
    structure_hash: 's',
    difficulty: 'easy',
    counts: { joins: 0, aggregates: 0, subqueries: 0, set_operations: 0 },
    distinct_sql: 2,
    verified_on: [],
    ...(source ? { source } : {}),
  };
}

let root: string;
let dir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'equisql-questions-'));
  dir = join(root, 'd');
  mkdirSync(join(dir, 'groups'), { recursive: true });
  const domain = BUILT_IN_DOMAINS.social_media!;
  writeFileSync(join(dir, 'er.json'), domainToJson(domain));
  const index = indexDomain(domain);
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny', profile: 'default' });
  const rng = createRng('questions-stage');
  const lines: string[] = [];
  PAPER_SOCIAL_MEDIA.slice(0, 3).forEach((q, i) =>
    lines.push(serializeGroup(group(q.query, i, { suite_id: q.id, question: q.question }))),
  );
  for (let i = 0; i < GROUPS; i++)
    lines.push(serializeGroup(group(randomQuery(index, instance, rng.fork(String(i))), 3 + i)));
  writeFileSync(join(dir, 'groups', 'social_media.jsonl'), lines.join(''));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const out = () => join(dir, 'questions', 'social_media.jsonl');

describe('equisql questions', () => {
  let full = '';

  it("writes one line per (group, style, paraphrase), a person's question kept as written, the same bytes on a rerun", () => {
    const first = runCli(['questions', '--dir', dir]);
    expect(first.stderr + first.stdout).not.toMatch(/internal error/u);
    expect(first.status).toBe(0);
    full = readFileSync(out(), 'utf8');
    const records = full
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as QuestionRecord);
    // The default plan: three natural questions a group and no precise one, plus the three suite questions.
    expect(records).toHaveLength((GROUPS + 3) * 3 + 3);
    expect(records.filter((r) => r.style === 'natural')).toHaveLength((GROUPS + 3) * 3);
    expect(records.filter((r) => r.style === 'precise' && r.writer.kind === 'template')).toEqual([]);
    const suite = records.filter((r) => r.writer.kind === 'suite');
    expect(suite.map((r) => r.question)).toEqual(PAPER_SOCIAL_MEDIA.slice(0, 3).map((q) => q.question));
    expect(suite.every((r) => r.check.kind === 'as-written')).toBe(true);
    expect(new Set(records.map((r) => r.question_id)).size).toBe(records.length);
    expect(records.filter((r) => r.style === 'natural' && r.evidence !== '').length).toBeGreaterThan(GROUPS / 2);
    const again = runCli(['questions', '--dir', dir, '--quiet']);
    expect(again.status).toBe(0);
    expect(again.stderr).toBe('');
    expect(readFileSync(out(), 'utf8')).toBe(full);
  }, 300_000);

  it('after kill -9 in the middle of a run, --resume gives the bytes of an uninterrupted run', async () => {
    writeFileSync(out(), '');
    const child = spawn(
      process.execPath,
      [resolve(REPO_ROOT, 'bin/equisql.js'), 'questions', '--dir', dir, '--resume'],
      { stdio: 'ignore' },
    );
    const target = full.length / 3;
    // The killed process must be reaped before its lock counts as stale (a zombie's pid is alive).
    const exited = new Promise((done) => child.once('exit', done));
    let killed = false;
    await new Promise<void>((done, fail) => {
      const timer = setInterval(() => {
        let size = 0;
        try {
          size = statSync(out()).size;
        } catch {
          /* not yet */
        }
        if (size >= target) {
          clearInterval(timer);
          killed = true;
          child.kill('SIGKILL');
          done();
        }
      }, 5);
      child.once('exit', () => {
        clearInterval(timer);
        if (!killed) fail(new Error('the run ended before it could be killed'));
      });
    });
    await exited;
    const cut = readFileSync(out(), 'utf8');
    expect(cut.length).toBeLessThan(full.length);
    expect(full.startsWith(cut.slice(0, cut.lastIndexOf('\n') + 1))).toBe(true);
    // Cut the last line in two as well, as a kill in the middle of a write would.
    truncateSync(out(), Math.max(0, cut.length - 40));
    const resumed = runCli(['questions', '--dir', dir, '--resume']);
    expect(resumed.status).toBe(0);
    expect(readFileSync(out(), 'utf8')).toBe(full);
  }, 300_000);

  it('refuses a file written with other settings on --resume, and bad flags, in one line with exit 2', () => {
    const copy = join(root, 'keep.jsonl');
    copyFileSync(out(), copy);
    const other = runCli(['questions', '--dir', dir, '--resume', '--styles', 'concise']);
    expect(other.status).toBe(2);
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(other.stderr).toMatch(/other settings/u);
    expect(readFileSync(out(), 'utf8')).toBe(readFileSync(copy, 'utf8'));
    for (const args of [
      ['--styles', 'poetic'],
      ['--paraphrases', '0'],
      ['--writer', 'oracle'],
      ['--concurrency', 'x'],
    ]) {
      const r = runCli(['questions', '--dir', dir, ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    const none = runCli(['questions', '--dir', join(root, 'missing')]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no groups/u);
  }, 120_000);

  it('show prints N seeded random questions, each with the SQL of one variant', () => {
    const a = runCli(['show', '--dir', dir, '-n', '4', '--seed', '7']);
    expect(a.status).toBe(0);
    const blocks = a.stdout.trim().split('\n\n');
    expect(blocks).toHaveLength(4);
    // Natural questions by default: what a user types.
    for (const b of blocks)
      expect(b).toMatch(
        /^\[social_media natural#\d template\] .+\n(evidence: .+\n)?-- (full_cti|fk_only)\nSELECT \d+ AS [nm]$/u,
      );
    const precise = runCli(['show', '--dir', dir, '-n', '4', '--style', 'precise']);
    expect(
      precise.stdout
        .trim()
        .split('\n\n')
        .every((b) => b.startsWith('[social_media precise#0 ')),
    ).toBe(true);
    const none = runCli(['show', '--dir', dir, '--style', 'concise']);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no concise question \(styles there: .*natural/u);
    expect(runCli(['show', '--dir', dir, '-n', '4', '--seed', '7']).stdout).toBe(a.stdout);
    expect(runCli(['show', '--dir', dir, '-n', '4', '--seed', '8']).stdout).not.toBe(a.stdout);
    expect(runCli(['show', '--dir', dir, '-n', 'many']).status).toBe(2);
  }, 120_000);
});
