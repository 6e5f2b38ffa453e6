// @tier long
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { PAPER_RETAIL } from '../../generator/suites/paper-retail.ts';
import { planSplits, DEFAULT_RATIOS, type SplitKind } from '../../generator/export/split-assign.ts';
import { checkExport } from '../../generator/export/check-export.ts';

const tmp = tempDir('export');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };
const VARIANTS = 'full_normalized,full_sti,full_cti,full_concrete';
const base = join(tmp.dir, 'generated');

const ajv = new Ajv({ allErrors: true });
const validate = ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, 'output/record.schema.json'), 'utf8')));
const lines = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

/** Rewrites a data file and its manifest entry, so only the corruption itself is left to find. */
function rewrite(dir: string, rel: string, rows: string[]): void {
  const text = rows.map((r) => `${r}\n`).join('');
  writeFileSync(join(dir, rel), text);
  const m = manifestOf(dir);
  m.export.files[rel] = { rows: rows.length, sha256: createHash('sha256').update(text).digest('hex') };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
}

function exported(kind: SplitKind): string {
  const dir = join(tmp.dir, kind);
  cpSync(base, dir, { recursive: true });
  const run = runCli(['export', '--dir', dir, '--split', kind]);
  expect(run.stderr).toMatch(/rows in/);
  expect(run.status).toBe(0);
  return dir;
}

beforeAll(() => {
  // The paper's social_media questions, as a suite file: groups with questions a person wrote.
  const suite = join(tmp.dir, 'suite.jsonl');
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') + '\n',
  );
  const run = runCli(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      VARIANTS,
      '--scale',
      'tiny',
      '--from-suite',
      suite,
      '--difficulty',
      'easy=1,medium=1,hard=1,extra=1',
      '--variants-per-question',
      'all',
      '--keep-duplicates',
      '--out',
      base,
    ],
    { env: noServer },
  );
  expect(run.stderr).toMatch(/export: \d+ rows of \d+ groups/);
}, 300_000);

describe('export formats', () => {
  it("writes JSONL and Parquet with the same rows, typed columns and the manifest's counts, every row valid against the JSON Schema", async () => {
    const dir = base;
    const m = manifestOf(dir);
    const groups = lines(join(dir, 'groups/social_media.jsonl')).length;
    expect(groups).toBeGreaterThanOrEqual(3);
    // One row per (question, variant): the person's question and the template ones, on four variants.
    const questions = lines(join(dir, 'questions/social_media.jsonl')).length;
    expect(questions).toBeGreaterThan(groups);
    expect(m.export.counts.rows).toBe(questions * 4);
    expect(m.stage).toBe('groups'); // the generation sections are kept
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    let total = 0;
    for (const split of Object.keys(m.export.splits)) {
      const jsonl = lines(join(dir, `data/${split}-00000-of-00001.jsonl`)).map((l) => JSON.parse(l));
      for (const row of jsonl) expect(validate(row), ajv.errorsText(validate.errors)).toBe(true);
      expect(jsonl.length).toBe(m.export.files[`data/${split}-00000-of-00001.jsonl`].rows);
      const pq = join(dir, `data/${split}-00000-of-00001.parquet`);
      const types = Object.fromEntries(
        (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${pq}')`))
          .getRowObjectsJson()
          .map((r) => [r['column_name'], r['column_type']]),
      );
      expect(types).toMatchObject({
        id: 'VARCHAR',
        paraphrase: 'INTEGER',
        row_count: 'BIGINT',
        ordered: 'BOOLEAN',
        cot: 'VARCHAR',
        canonical_sql: 'VARCHAR',
      });
      expect(Object.keys(types)).toEqual(Object.keys(jsonl[0]));
      const rows = (await c.runAndReadAll(`SELECT * FROM read_parquet('${pq}')`)).getRowObjectsJson();
      expect(rows.length).toBe(m.export.files[`data/${split}-00000-of-00001.parquet`].rows);
      // DuckDB's JSON form gives BIGINT as text; everything else must match the JSONL exactly.
      expect(rows.map((r) => ({ ...r, row_count: Number(r['row_count']) }))).toEqual(jsonl);
      const codecs = (
        await c.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${pq}')`)
      ).getRowObjectsJson();
      expect(codecs).toEqual([{ compression: 'GZIP' }]);
      total += rows.length;
    }
    expect(total).toBe(m.export.counts.rows);
    c.closeSync();
  });

  it("writes chat lines with alternating roles whose assistant turn is the record's SQL, and the variant's DDL in the prompt", () => {
    const m = manifestOf(base);
    for (const split of Object.keys(m.export.splits)) {
      const records = lines(join(base, `data/${split}-00000-of-00001.jsonl`)).map((l) => JSON.parse(l));
      const chats = lines(join(base, `finetune/${split}.chat.jsonl`)).map((l) => JSON.parse(l));
      const prompts = lines(join(base, `finetune/${split}.prompt.jsonl`)).map((l) => JSON.parse(l));
      expect(chats).toHaveLength(records.length);
      chats.forEach((chat, i) => {
        const r = records[i];
        expect(chat.messages.map((x: { role: string }) => x.role)).toEqual(['system', 'user', 'assistant']);
        expect(chat.messages[2].content).toBe(r.sql);
        expect(chat.messages[1].content).toContain(r.question);
        const firstTable = /CREATE TABLE [^\n]+/u.exec(
          readFileSync(join(base, 'schemas', `${r.variant}.sql`), 'utf8'),
        )?.[0];
        expect(chat.messages[1].content).toContain(firstTable);
        expect(prompts[i].completion).toEqual([{ role: 'assistant', content: r.sql }]);
        expect(prompts[i].prompt).toEqual(chat.messages.slice(0, 2));
      });
    }
  });

  it("writes a dataset card whose front matter names each split's files and sizes", () => {
    const card = readFileSync(join(base, 'README.md'), 'utf8');
    const m = manifestOf(base);
    for (const [split, n] of Object.entries(m.export.splits as Record<string, { rows: number }>)) {
      expect(card).toContain(`  - split: ${split}\n    path: data/${split}-00000-of-00001.jsonl`);
      expect(card).toContain(`  - name: ${split}\n    num_examples: ${n.rows}`);
    }
    for (const key of [
      'license: unknown',
      'task_categories:',
      'pretty_name:',
      'size_categories:',
      '## Guarantees',
      '| full_cti |',
    ])
      expect(card).toContain(key);
  });
});

describe.each(['random', 'skeleton', 'variant'] as const)('split %s', (kind) => {
  let dir: string;
  beforeAll(() => {
    dir = exported(kind);
  }, 120_000);

  it('is deterministic and passes check', () => {
    const again = join(tmp.dir, `${kind}-again`);
    cpSync(base, again, { recursive: true });
    expect(runCli(['export', '--dir', again, '--split', kind]).status).toBe(0);
    for (const rel of Object.keys(manifestOf(dir).export.files))
      expect(readFileSync(join(again, rel)).equals(readFileSync(join(dir, rel))), rel).toBe(true);
    const run = runCli(['check', '--dir', dir]);
    expect(run.stdout).toBe('');
    expect(run.status).toBe(0);
    if (kind === 'variant') {
      const m = manifestOf(dir);
      for (const split of Object.keys(m.export.splits)) {
        const variants = new Set(
          lines(join(dir, `data/${split}-00000-of-00001.jsonl`)).map((l) => JSON.parse(l).variant),
        );
        for (const v of variants) expect(m.export.variant_splits[v]).toBe(split);
      }
    }
  });

  it('fails check on a group moved across splits, a duplicated question and a truncated file', () => {
    const splits = Object.keys(manifestOf(dir).export.splits);
    // a: train, whose groups have more than one row (a moved row leaves its group behind); b: another split.
    const a = 'train';
    const b = splits.find((s) => s !== 'train');
    expect(splits.length).toBeGreaterThanOrEqual(kind === 'skeleton' ? 1 : 2);
    const fileOf = (s: string) => `data/${s}-00000-of-00001.jsonl`;
    const copy = (name: string) => {
      const d = join(tmp.dir, `${kind}-${name}`);
      cpSync(dir, d, { recursive: true });
      return d;
    };
    const rowsA = lines(join(dir, fileOf(a)));
    if (b !== undefined) {
      // A group moved: one of its rows now sits in another split's file, labelled as that split.
      const moved = copy('moved');
      expect(
        lines(join(dir, fileOf(a))).filter((l) => JSON.parse(l).group_id === JSON.parse(rowsA[0] as string).group_id)
          .length,
      ).toBeGreaterThan(1);
      const row = { ...JSON.parse(rowsA[0] as string), split: b };
      rewrite(moved, fileOf(b), [...lines(join(moved, fileOf(b))), JSON.stringify(row)]);
      rewrite(moved, fileOf(a), rowsA.slice(1));
      const run = runCli(['check', '--dir', moved]);
      expect(run.status).toBe(1);
      expect(run.stdout).toMatch(/^group-leak: /mu);
      // A duplicated question: a row of b asks a's question.
      const dup = copy('dup');
      const rowsB = lines(join(dup, fileOf(b)));
      const changed = { ...JSON.parse(rowsB[0] as string), question: JSON.parse(rowsA[0] as string).question };
      rewrite(dup, fileOf(b), [JSON.stringify(changed), ...rowsB.slice(1)]);
      const d = runCli(['check', '--dir', dup]);
      expect(d.status).toBe(1);
      expect(d.stdout).toMatch(/^question-leak: /mu);
      expect(d.stdout).not.toMatch(/group-leak/u);
    }
    // A truncated file: the last line cut off, the manifest untouched.
    const cut = copy('cut');
    const text = readFileSync(join(cut, fileOf(a)), 'utf8');
    writeFileSync(join(cut, fileOf(a)), text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
    const t = runCli(['check', '--dir', cut]);
    expect(t.status).toBe(1);
    expect(t.stdout).toMatch(/^row-count: .*the manifest says/mu);
  });
});

describe('split plans', () => {
  const units = Array.from({ length: 60 }, (_, i) => ({
    group_id: `g${i}`,
    skeleton: `s${i % 12}`,
    domain: `d${i % 5}`,
    db_id: `b${i % 7}`,
  }));
  it.each(['random', 'skeleton', 'domain', 'database'] as const)(
    '%s: deterministic, order-free, no unit in two splits, every split used',
    (kind) => {
      const plan = planSplits(units, [], kind, DEFAULT_RATIOS, 7);
      const shuffled = planSplits([...units].reverse(), [], kind, DEFAULT_RATIOS, 7);
      expect([...plan.groups].sort()).toEqual([...shuffled.groups].sort());
      const key =
        kind === 'skeleton' ? 'skeleton' : kind === 'domain' ? 'domain' : kind === 'database' ? 'db_id' : 'group_id';
      const where = new Map<string, Set<string>>();
      for (const u of units)
        where.set(u[key], (where.get(u[key]) ?? new Set()).add(plan.groups.get(u.group_id) as string));
      for (const s of where.values()) expect(s.size).toBe(1);
      expect(new Set(plan.groups.values())).toEqual(new Set(['train', 'validation', 'test']));
      expect(planSplits(units, [], kind, DEFAULT_RATIOS, 8).groups).not.toEqual(plan.groups);
    },
  );

  it('domain: two generated domains split by domain, check passes, and fails when a group moves', () => {
    const retailSuite = join(tmp.dir, 'retail-suite.jsonl');
    writeFileSync(
      retailSuite,
      PAPER_RETAIL.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') + '\n',
    );
    const retail = join(tmp.dir, 'retail');
    runCli(
      [
        'generate',
        '--dataset',
        'retail',
        '--variants',
        'full_normalized,full_sti',
        '--scale',
        'tiny',
        '--from-suite',
        retailSuite,
        '--difficulty',
        'easy=1,medium=1,hard=1,extra=1',
        '--formats',
        'jsonl',
        '--out',
        retail,
      ],
      { env: noServer },
    );
    const dir = join(tmp.dir, 'domain');
    cpSync(base, dir, { recursive: true });
    const run = runCli([
      'export',
      '--dir',
      dir,
      '--include',
      retail,
      '--split',
      'domain',
      '--ratios',
      'train=0.5,test=0.5',
    ]);
    expect(run.stderr).toMatch(/rows in/u);
    expect(run.status).toBe(0);
    const domains = (split: string) =>
      new Set(lines(join(dir, `data/${split}-00000-of-00001.jsonl`)).map((l) => JSON.parse(l).domain));
    expect([...domains('train'), ...domains('test')].sort()).toEqual(['retail', 'social_media']);
    expect(domains('train').size).toBe(1);
    const m = manifestOf(dir);
    expect(m.export.schemas['retail/full_sti']).toEqual({
      ddl: 'datasets/retail/schemas/full_sti.sql',
      dump: 'datasets/retail/dumps/full_sti.sql',
    });
    expect(readFileSync(join(dir, 'datasets/retail/schemas/full_sti.sql'), 'utf8')).toBe(
      readFileSync(join(retail, 'schemas/full_sti.sql'), 'utf8'),
    );
    const chat = JSON.parse(lines(join(dir, 'finetune/test.chat.jsonl'))[0] as string);
    const first = JSON.parse(lines(join(dir, 'data/test-00000-of-00001.jsonl'))[0] as string);
    expect(chat.messages[1].content).toContain(
      /CREATE TABLE [^\n]+/u.exec(readFileSync(join(dir, m.export.schemas[first.schema_id].ddl), 'utf8'))?.[0],
    );
    expect(runCli(['check', '--dir', dir]).status).toBe(0);
    const rowsTrain = lines(join(dir, 'data/train-00000-of-00001.jsonl'));
    rewrite(dir, 'data/test-00000-of-00001.jsonl', [
      ...lines(join(dir, 'data/test-00000-of-00001.jsonl')),
      JSON.stringify({ ...JSON.parse(rowsTrain[0] as string), split: 'test' }),
    ]);
    const bad = runCli(['check', '--dir', dir]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^group-leak: /mu);
  }, 300_000);

  it('domain: a single-domain export is refused with exit 2, naming the flag', () => {
    const run = runCli(['export', '--dir', base, '--split', 'domain']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--split domain needs groups of at least 3 domains/u);
  });

  it('check of a clean export finds nothing, in-process too', () => {
    expect(checkExport(base).findings).toEqual([]);
  });
});

describe('linked groups', () => {
  it('groups sharing a question or SQL text land in one split, for every kind that cuts groups', () => {
    const units = Array.from({ length: 40 }, (_, i) => ({
      group_id: `g${i}`,
      skeleton: `s${i % 8}`,
      domain: 'd',
      db_id: 'b',
    }));
    const links = [
      ['g1', 'g2', 'g3'],
      ['g5', 'g30'],
      ['g9', 'g17', 'g25', 'g33'],
    ];
    for (const kind of ['random', 'skeleton', 'variant'] as const) {
      const plan = planSplits(units, ['a', 'b', 'c', 'd'], kind, DEFAULT_RATIOS, 3, links);
      for (const link of links) expect(new Set(link.map((g) => plan.groups.get(g))).size, `${kind} ${link}`).toBe(1);
      expect(new Set(plan.groups.values()).size).toBe(3);
    }
  });
});
