import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import type { EvalSummary, PredictionLine } from '../../generator/eval/eval-summary.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';

// `equisql eval` on a build in a PostgreSQL server: a pool of connections, the gold scored
// 100%, and predictions that time out, fail or are refused each counted by their kind.
describeServer('equisql eval on a server', (serverUrl) => {
  const tmp = tempDir('eval-server');
  const dir = join(tmp.dir, 'generated');
  let url = '';
  let drop: (() => Promise<void>) | undefined;
  let rows: ExportRecord[] = [];
  const read = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '');

  beforeAll(async () => {
    const fresh = await createDatabase(serverUrl, 'wt_eval_server');
    url = fresh.url;
    drop = fresh.drop;
    const suite = join(tmp.dir, 'suite.jsonl');
    writeFileSync(
      suite,
      PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') +
        '\n',
    );
    const generated = runCli([
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      'full_normalized,full_sti',
      '--scale',
      'tiny',
      '--from-suite',
      suite,
      '--variants-per-question',
      'all',
      '--db',
      url,
      '--out',
      dir,
    ]);
    expect(generated.stderr).toMatch(/groups from/);
    const exported = runCli(['export', '--dir', dir, '--ratios', 'test=1', '--formats', 'jsonl']);
    expect(exported.status, exported.stderr).toBe(0);
    rows = read(join(dir, 'data/test-00000-of-00001.jsonl')).map((l) => JSON.parse(l) as ExportRecord);
  }, 300_000);
  afterAll(async () => {
    await drop?.();
    tmp.remove();
  });

  it('scores the gold 100% over a pool of connections', () => {
    const out = join(tmp.dir, 'gold');
    const run = runCli(['eval', '--dir', dir, '--model', 'gold', '--db', url, '--concurrency', '4', '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as EvalSummary;
    const d = s.datasets[0] as EvalSummary['datasets'][number];
    const questions = new Set(rows.map((r) => r.question_id)).size;
    expect(s.ex).toEqual({ correct: rows.length, total: rows.length, rate: 1 });
    expect(d.pss.matrix).toEqual([
      [questions, questions],
      [questions, questions],
    ]);
    expect(d.edge_instance).toBe(true);
  }, 300_000);

  it('counts a timed-out, a failing and a refused prediction by their kind', () => {
    const sti = rows.filter((r) => r.variant === 'full_sti');
    const bad = new Map([
      [sti[0]?.id, 'SELECT count(*) FROM accounts a, accounts b, accounts c, accounts d, accounts e, accounts f'],
      [sti[1]?.id, 'SELECT 1 / (SELECT count(*) - count(*) FROM accounts)'],
      [sti[2]?.id, 'SELECT pg_sleep(5)'],
    ]);
    const file = join(tmp.dir, 'bad.jsonl');
    // The third row has no line: scored missing.
    writeFileSync(
      file,
      rows
        .filter((r) => r.id !== sti[3]?.id)
        .map((r) => JSON.stringify({ id: r.id, sql: bad.get(r.id) ?? r.sql }))
        .join('\n') + '\n',
    );
    const out = join(tmp.dir, 'bad');
    const run = runCli(['eval', '--dir', dir, '--predictions', file, '--db', url, '--timeout', '1', '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    const lines = new Map(
      read(join(out, 'predictions.jsonl'))
        .map((l) => JSON.parse(l) as PredictionLine)
        .map((l) => [l.id, l]),
    );
    expect(lines.get(sti[0]?.id as string)?.outcome).toBe('timeout');
    expect(lines.get(sti[1]?.id as string)?.outcome).toBe('error');
    expect(lines.get(sti[1]?.id as string)?.message).toMatch(/division by zero/);
    expect(lines.get(sti[2]?.id as string)?.outcome).toBe('refused');
    expect(lines.get(sti[3]?.id as string)?.outcome).toBe('missing');
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as EvalSummary;
    expect(s.errors.by_kind).toEqual({ refused: 1, error: 1, timeout: 1, 'over-cap': 0, missing: 1 });
    expect(s.ex.correct).toBe(rows.length - 4);
    const sti0 = s.datasets[0]?.ex_by_variant.find((v) => v.variant === 'full_sti');
    expect(sti0?.errors.invalid).toBe(4);
  }, 300_000);
});
