// @tier long
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { countTokens, encodeChat } from 'gpt-tokenizer';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliAsync } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { startChatServer, type ChatServer } from '../helpers/chat-completions-server.ts';
import { promptSchemaTexts } from '../../generator/export/prompt-schema-source.ts';

// The fine-tuning side of an export, read as trainers read it: token lengths recounted with
// the tokenizer, the card's subsets checked against the files, the trainers' settings
// checked against the files they name, and the row controls on real generated groups. A
// second dataset whose questions an LLM wrote (through a chat-completions server on
// 127.0.0.1) joins the first by --include, so one split has chains of thought and another
// none.

const NO_SERVER = { DATABASE_URL: undefined };
const VARIANTS = 'full_normalized,full_sti,full_cti,full_concrete';
const tmp = tempDir('finetune-export');
const base = join(tmp.dir, 'social_media');
const llm = join(tmp.dir, 'retail');
let server: ChatServer;
afterAll(async () => {
  await server?.close();
  tmp.remove();
});

type Message = { role: string; content: string };
const lines = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const json = <T>(path: string): T[] => lines(path).map((l) => JSON.parse(l) as T);
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const frontMatter = (dir: string) =>
  parseYaml(/^---\n([\s\S]*?)\n---\n/u.exec(readFileSync(join(dir, 'README.md'), 'utf8'))?.[1] ?? '');

function exported(name: string, args: string[]): string {
  const dir = join(tmp.dir, name);
  // The export reads files only: the databases stay behind.
  cpSync(base, dir, { recursive: true, filter: (src) => !/[\\/](pglite|edge)$/u.test(src) });
  const run = runCli(['export', '--dir', dir, ...args]);
  expect(run.status, run.stderr).toBe(0);
  return dir;
}

function stats(values: number[]): { p50: number; p90: number; max: number } {
  const s = [...values].sort((a, b) => a - b);
  const rank = (p: number) => s[Math.ceil(p * s.length) - 1] as number;
  return { p50: rank(0.5), p90: rank(0.9), max: s[s.length - 1] as number };
}

beforeAll(async () => {
  const run = runCli(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      VARIANTS,
      '--scale',
      'tiny',
      '--groups',
      '8',
      '--out',
      base,
    ],
    { env: NO_SERVER },
  );
  expect(run.status, run.stderr).toBe(0);
  const gen = runCli(
    ['generate', '--dataset', 'retail', '--variants', VARIANTS, '--scale', 'tiny', '--groups', '3', '--out', llm],
    { env: NO_SERVER },
  );
  expect(gen.status, gen.stderr).toBe(0);
  server = await startChatServer();
  const config = join(tmp.dir, 'llm.config.ts');
  writeFileSync(config, `export default { datasets: {}, llm: { model: 'local-model' } };\n`);
  const q = await runCliAsync(
    [
      'questions',
      '--dir',
      llm,
      '--writer',
      'llm',
      '--styles',
      'precise',
      '--paraphrases',
      '1',
      '--config',
      config,
      '--quiet',
    ],
    { env: { ...NO_SERVER, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'local-key' } },
  );
  expect(q.status, q.stderr).toBe(0);
}, 600_000);

describe('fine-tuning files', () => {
  it('each file, read with the tokenizer, has the lengths the manifest and the card give; the suggested length fits the longest row', () => {
    const dir = base;
    const tokens = manifestOf(dir).export.tokens;
    const card = readFileSync(join(dir, 'README.md'), 'utf8');
    const files = readdirSync(join(dir, 'finetune')).filter((f) => f.endsWith('.jsonl'));
    expect(files.length).toBe(6);
    let longest = 0;
    for (const file of files) {
      const rel = `finetune/${file}`;
      const rows = json<{ messages?: Message[]; prompt?: Message[]; completion?: Message[] }>(join(dir, rel));
      // The sequence a trainer holds: every turn, framed as gpt-4o's chat format frames it
      // (encodeChat adds the header a reply would start from; a finished chat has none).
      const header = encodeChat([], 'gpt-4o').length;
      const sequence = rows.map(
        (r) =>
          encodeChat((r.messages ?? [...(r.prompt ?? []), ...(r.completion ?? [])]) as never, 'gpt-4o').length - header,
      );
      const entry = tokens.files[rel];
      expect(entry.rows).toBe(rows.length);
      expect(entry.sequence, rel).toEqual(stats(sequence));
      if (file.endsWith('.prompt.jsonl')) {
        const prompt = rows.map((r) => encodeChat(r.prompt as never, 'gpt-4o').length);
        expect(entry.prompt, rel).toEqual(stats(prompt));
        expect(entry.completion, rel).toEqual(stats(sequence.map((n, i) => n - (prompt[i] as number))));
        expect(entry.completion.max).toBeLessThan(entry.prompt.p50);
      }
      const fmt = (s: { p50: number; p90: number; max: number }) =>
        `${s.p50.toLocaleString('en-US')} / ${s.p90.toLocaleString('en-US')} / ${s.max.toLocaleString('en-US')}`;
      expect(card).toContain(`| \`${rel}\` | ${rows.length} | ${fmt(entry.sequence)} |`);
      longest = Math.max(longest, ...sequence);
    }
    expect(tokens.longest).toBe(longest);
    expect(tokens.suggested).toBeGreaterThanOrEqual(longest);
    expect(tokens.suggested % 256).toBe(0);
    expect(card).toContain(`max_length=${tokens.suggested}`);
    const trl = tokens.over_defaults.find((d: { setting: string }) => d.setting === 'max_length');
    expect(trl.value).toBe(1024);
    expect(card).toMatch(new RegExp(`\\| TRL SFTTrainer \\| \`max_length\` 1,024 \\| ${trl.rows_over} `, 'u'));
  });

  it("the prompt–completion file's completion is exactly the SQL and its prompt holds the system turn and the user turn with the schema and question; the chat file holds the same turns", () => {
    const dir = base;
    const ddl = promptSchemaTexts(dir, 'compact');
    for (const split of Object.keys(manifestOf(dir).export.splits)) {
      const data = json<{ id: string; sql: string; question: string; evidence: string; variant: string }>(
        join(dir, `data/${split}-00000-of-00001.jsonl`),
      );
      const prompt = json<{ id: string; prompt: Message[]; completion: Message[] }>(
        join(dir, `finetune/${split}.prompt.jsonl`),
      );
      const chat = json<{ id: string; messages: Message[] }>(join(dir, `finetune/${split}.chat.jsonl`));
      expect(prompt.length).toBe(data.length);
      prompt.forEach((p, i) => {
        const row = data[i]!;
        // Each line names its record: found by id, not by line order.
        expect(Object.keys(p)).toEqual(['id', 'prompt', 'completion']);
        expect([p.id, chat[i]!.id]).toEqual([row.id, row.id]);
        expect(p.completion).toEqual([{ role: 'assistant', content: row.sql }]);
        expect(p.prompt.map((m) => m.role)).toEqual(['system', 'user']);
        expect(p.prompt[1]!.content).toBe(
          `Database schema:\n\n${ddl.get(row.variant)}\n\nQuestion: ${row.question}${row.evidence ? `\n\nEvidence: ${row.evidence}` : ''}`,
        );
        expect(chat[i]!.messages).toEqual([...p.prompt, ...p.completion]);
      });
    }
  });

  it('--prompt-schema full and compact+values show those schemas; compact prompts are shorter than full ones', () => {
    const full = exported('full-schema', ['--prompt-schema', 'full']);
    const values = exported('values-schema', ['--prompt-schema', 'compact+values']);
    const first = (dir: string) =>
      json<{ prompt: Message[] }>(join(dir, 'finetune/train.prompt.jsonl'))[0]!.prompt[1]!.content;
    expect(first(full)).toMatch(/ALTER TABLE .* ADD PRIMARY KEY/u);
    expect(first(full)).toMatch(/CREATE INDEX/u);
    expect(first(values)).toMatch(/ -- e\.g\. /u);
    expect(first(values)).not.toMatch(/ALTER TABLE|CREATE INDEX/u);
    const p50 = (dir: string) => manifestOf(dir).export.tokens.files['finetune/train.prompt.jsonl'].prompt.p50;
    expect(p50(base)).toBeLessThan(p50(full) * 0.75);
    expect(manifestOf(values).export.prompt_schema).toBe('compact+values');
    expect(readFileSync(join(values, 'README.md'), 'utf8')).toContain('--prompt-schema compact+values');
  });
});

describe('the card as the Hub and datasets read it', () => {
  it("names data, chat and prompt subsets whose paths, splits, row counts and features are the files'; all in one format", async () => {
    const dir = base;
    const fm = frontMatter(dir);
    const m = manifestOf(dir);
    const splits = ['train', 'validation', 'test'].filter((s) => m.export.splits[s]);
    expect(fm.configs.map((c: { config_name: string }) => c.config_name)).toEqual(['data', 'chat', 'prompt']);
    expect(fm.configs[0].default).toBe(true);
    expect(fm.dataset_info.map((c: { config_name: string }) => c.config_name)).toEqual(['data', 'chat', 'prompt']);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const exts = new Set<string>();
    for (const config of fm.configs as { config_name: string; data_files: { split: string; path: string }[] }[]) {
      const info = fm.dataset_info.find((i: { config_name: string }) => i.config_name === config.config_name);
      expect(config.data_files.map((f) => f.split)).toEqual(splits);
      expect(info.splits.map((s: { name: string }) => s.name)).toEqual(splits);
      for (const f of config.data_files) {
        exts.add(f.path.split('.').pop() as string);
        const path = join(dir, f.path);
        expect(existsSync(path), f.path).toBe(true);
        const rows = lines(path).map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(info.splits.find((s: { name: string }) => s.name === f.split).num_examples).toBe(rows.length);
        expect(m.export.files[f.path].rows).toBe(rows.length);
        const features = info.features as { name: string; dtype?: string; list?: { name: string; dtype: string }[] }[];
        // Every line has exactly the features' keys; message lists have exactly role and content.
        for (const row of rows) {
          expect(Object.keys(row)).toEqual(features.map((x) => x.name));
          for (const feature of features.filter((x) => x.list)) {
            for (const message of row[feature.name] as Record<string, unknown>[])
              expect(Object.keys(message)).toEqual(feature.list!.map((x) => x.name));
          }
        }
        if (config.config_name === 'data') {
          // The declared dtypes are the ones the typed Parquet copy of the same rows has.
          const pq = path.replace(/\.jsonl$/u, '.parquet');
          const types = Object.fromEntries(
            (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${pq}')`))
              .getRowObjectsJson()
              .map((r) => [r['column_name'], r['column_type']]),
          );
          const duck = { string: 'VARCHAR', int32: 'INTEGER', int64: 'BIGINT', bool: 'BOOLEAN' } as Record<
            string,
            string
          >;
          expect(types).toEqual(Object.fromEntries(features.map((x) => [x.name, duck[x.dtype as string]])));
        }
      }
    }
    // datasets reads every subset of a folder with one builder: one file format for all.
    expect([...exts]).toEqual(['jsonl']);
    for (const key of [
      'license',
      'annotations_creators',
      'task_categories',
      'size_categories',
      'pretty_name',
      'source_datasets',
    ])
      expect(fm[key], key).toBeDefined();
    expect(fm.license).toBe('unknown');
    expect(fm.annotations_creators).toEqual(['machine-generated']);
  });

  it('--formats …,chat-parquet,prompt-parquet: the fine-tuning lines as Parquet, the same turns, and every subset of the card in Parquet', async () => {
    const dir = exported('parquet-tuned', ['--formats', 'jsonl,parquet,chat,prompt,chat-parquet,prompt-parquet']);
    const fm = frontMatter(dir);
    const paths = (fm.configs as { data_files: { path: string }[] }[]).flatMap((c) => c.data_files.map((f) => f.path));
    expect(paths.every((p) => p.endsWith('.parquet'))).toBe(true);
    expect(paths).toContain('finetune/train.prompt.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    for (const split of ['train', 'validation', 'test'].filter((s) => manifestOf(dir).export.splits[s])) {
      for (const kind of ['chat', 'prompt']) {
        const fromParquet = (
          await c.runAndReadAll(`SELECT * FROM read_parquet('${join(dir, `finetune/${split}.${kind}.parquet`)}')`)
        ).getRowObjectsJson();
        expect(fromParquet, `${split} ${kind}`).toEqual(json(join(dir, `finetune/${split}.${kind}.jsonl`)));
      }
    }
    expect(runCli(['check', '--dir', dir]).status).toBe(0);
  });

  it('every nullable column has one type in every split, when one split has LLM chains of thought and another none', async () => {
    const dir = exported('mixed', [
      '--include',
      llm,
      '--split',
      'domain',
      '--ratios',
      'train=0.5,validation=0,test=0.5',
    ]);
    const m = manifestOf(dir);
    const splits = Object.keys(m.export.splits);
    expect(splits.length).toBe(2);
    const rows = Object.fromEntries(
      splits.map((s) => [s, json<Record<string, unknown>>(join(dir, `data/${s}-00000-of-00001.jsonl`))]),
    );
    // The case that breaks a reader inferring types per split: strings in one, only nulls in the other.
    const withCot = splits.filter((s) => rows[s]!.some((r) => typeof r['cot'] === 'string'));
    const without = splits.filter((s) => rows[s]!.every((r) => r['cot'] === null));
    expect(withCot.length).toBe(1);
    expect(without.length).toBe(1);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const typesOf = async (s: string) =>
      (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${join(dir, `data/${s}-00000-of-00001.parquet`)}')`))
        .getRowObjectsJson()
        .map((r) => `${r['column_name']} ${r['column_type']} ${r['null']}`);
    expect(await typesOf(splits[0]!)).toEqual(await typesOf(splits[1]!));
    const fm = frontMatter(dir);
    const features = fm.dataset_info.find((i: { config_name: string }) => i.config_name === 'data').features as {
      name: string;
      dtype: string;
    }[];
    const schema = JSON.parse(readFileSync(join(dir, 'record.schema.json'), 'utf8')) as {
      properties: Record<string, { type: string | string[] }>;
    };
    const nullable = Object.entries(schema.properties)
      .filter(([, p]) => Array.isArray(p.type) && p.type.includes('null'))
      .map(([k]) => k);
    expect(nullable).toEqual(expect.arrayContaining(['cot', 'canonical_sql']));
    for (const col of nullable) {
      expect(features.find((f) => f.name === col)?.dtype, col).toBe('string');
      for (const s of splits)
        for (const r of rows[s]!) expect(r[col] === null || typeof r[col] === 'string', `${s} ${col}`).toBe(true);
    }
    expect(fm.annotations_creators).toEqual(['machine-generated']);
    expect(runCli(['check', '--dir', dir]).status).toBe(0);
  });

  it("takes the licence and metadata from the config's card", () => {
    const dir = join(tmp.dir, 'licensed');
    cpSync(base, dir, { recursive: true });
    const config = join(tmp.dir, 'card.config.ts');
    writeFileSync(
      config,
      `export default { datasets: { social_media: { domain: 'social_media', card: { license: 'cc-by-4.0', pretty_name: 'Streams and clips', tags: ['text-to-sql'] } } } };\n`,
    );
    const run = runCli(['export', '--dir', dir, '--config', config]);
    expect(run.status, run.stderr).toBe(0);
    const fm = frontMatter(dir);
    expect(fm.license).toBe('cc-by-4.0');
    expect(fm.pretty_name).toBe('Streams and clips');
    expect(fm.tags).toEqual(['text-to-sql']);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('# Streams and clips');
    writeFileSync(
      config,
      `export default { datasets: { social_media: { domain: 'social_media', card: { licence: 'mit' } } } };\n`,
    );
    const bad = runCli(['export', '--dir', dir, '--config', config]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/datasets\.social_media\.card\["licence"\]: unknown key \(did you mean "license"\?\)/u);
  });
});

describe('trainer settings next to the files', () => {
  it('the LLaMA-Factory entries and the Axolotl snippet name files and fields that exist, with a length no row exceeds', () => {
    const dir = base;
    const tokens = manifestOf(dir).export.tokens;
    const info = JSON.parse(readFileSync(join(dir, 'finetune/dataset_info.json'), 'utf8')) as Record<
      string,
      { file_name: string; formatting: string; columns: { messages: string }; tags: Record<string, string> }
    >;
    expect(Object.keys(info).sort()).toEqual(
      Object.keys(manifestOf(dir).export.splits)
        .map((s) => `equisql_social_media_${s}`)
        .sort(),
    );
    for (const entry of Object.values(info)) {
      // dataset_dir is the finetune folder: file_name is relative to it.
      const rows = json<Record<string, Message[]>>(join(dir, 'finetune', entry.file_name));
      expect(entry.formatting).toBe('sharegpt');
      for (const row of rows) {
        const messages = row[entry.columns.messages]!;
        expect(messages.map((m) => Object.keys(m).sort())).toEqual(
          messages.map(() => [entry.tags['content_tag'], entry.tags['role_tag']].sort()),
        );
        expect(messages.map((m) => (m as Record<string, string>)[entry.tags['role_tag']!])).toEqual([
          entry.tags['system_tag'],
          entry.tags['user_tag'],
          entry.tags['assistant_tag'],
        ]);
      }
    }
    const axolotl = parseYaml(readFileSync(join(dir, 'finetune/axolotl.yaml'), 'utf8')) as {
      sequence_len: number;
      datasets: Record<string, unknown>[];
      test_datasets: Record<string, unknown>[];
    };
    expect(axolotl.sequence_len).toBe(tokens.suggested);
    expect(axolotl.sequence_len).toBeGreaterThanOrEqual(tokens.longest);
    for (const d of [...axolotl.datasets, ...axolotl.test_datasets]) {
      expect(d['type']).toBe('chat_template');
      const path = join(dir, d['path'] as string);
      expect(existsSync(path), String(d['path'])).toBe(true);
      const mapping = d['message_property_mappings'] as Record<string, string>;
      for (const row of json<Record<string, Record<string, string>[]>>(path)) {
        const messages = row[d['field_messages'] as string]!;
        for (const m of messages) for (const key of Object.values(mapping)) expect(typeof m[key]).toBe('string');
        expect(messages.map((m) => m[mapping['role']!])).toContain((d['roles_to_train'] as string[])[0]);
      }
    }
  });
});

describe('how many rows a group becomes', () => {
  it('--variants-per-question 2: each train and validation question on two variants, every variant of each group covered, rows = questions × 2; the test split keeps every variant; check passes', () => {
    const dir = exported('two-variants', ['--variants-per-question', '2']);
    const m = manifestOf(dir);
    const questions = json<{ question_id: string; group_id: string }>(join(dir, 'questions/social_media.jsonl'));
    const qPerGroup = new Map<string, number>();
    for (const q of questions) qPerGroup.set(q.group_id, (qPerGroup.get(q.group_id) ?? 0) + 1);
    let sampled = 0;
    for (const split of Object.keys(m.export.splits)) {
      const rows = json<{ group_id: string; question_id: string; variant: string; sql: string }>(
        join(dir, `data/${split}-00000-of-00001.jsonl`),
      );
      const groups = new Set(rows.map((r) => r.group_id));
      for (const g of groups) {
        const mine = rows.filter((r) => r.group_id === g);
        const perQuestion = new Map<string, string[]>();
        for (const r of mine) perQuestion.set(r.question_id, [...(perQuestion.get(r.question_id) ?? []), r.variant]);
        expect(perQuestion.size).toBe(qPerGroup.get(g));
        expect(new Set(mine.map((r) => r.variant)).size, `${split} ${g}`).toBe(4);
        const k = split === 'test' ? 4 : 2;
        for (const vs of perQuestion.values()) expect(new Set(vs).size).toBe(k);
        expect(mine.length).toBe((qPerGroup.get(g) as number) * k);
        if (split !== 'test') sampled += mine.length;
      }
    }
    expect(m.export.counts.duplicates_dropped).toEqual({ train: 0, validation: 0 });
    expect(sampled).toBeGreaterThan(0);
    expect(m.export.row_controls.variants_per_question).toBe(2);
    const check = runCli(['check', '--dir', dir]);
    expect(check.status, check.stdout).toBe(0);
    // Drawn from the seed: the same export twice is the same bytes.
    const again = exported('two-variants-again', ['--variants-per-question', '2']);
    for (const f of Object.keys(m.export.files))
      expect(readFileSync(join(again, f)).equals(readFileSync(join(dir, f))), f).toBe(true);
  });

  it('--variants-per-question all asks every question on every variant; --paraphrases-per-style and --max-rows cut train and validation only; the card states the repetition', () => {
    const all = manifestOf(exported('all-variants', ['--variants-per-question', 'all', '--keep-duplicates'])).export;
    const questions = lines(join(base, 'questions/social_media.jsonl')).length;
    expect(all.counts.rows).toBe(questions * 4);
    // Variants whose SQL is the same text give the same (question, SQL) pair: dropped by default.
    const deduped = manifestOf(exported('all-deduped', ['--variants-per-question', 'all'])).export;
    const dropped =
      (deduped.counts.duplicates_dropped.train ?? 0) + (deduped.counts.duplicates_dropped.validation ?? 0);
    expect(deduped.counts.rows).toBe(questions * 4 - dropped);
    expect(deduped.splits.test.rows).toBe(all.splits.test.rows);
    const cut = exported('cut', ['--paraphrases-per-style', '1', '--max-rows', '10']);
    const m = manifestOf(cut).export;
    expect(m.splits.train.rows + (m.splits.validation?.rows ?? 0)).toBe(10);
    const train = json<{ paraphrase: number; group_id: string }>(join(cut, 'data/train-00000-of-00001.jsonl'));
    expect(train.every((r) => r.paraphrase === 0)).toBe(true);
    // Taken evenly: every train group keeps rows.
    expect(new Set(train.map((r) => r.group_id)).size).toBe(m.splits.train.groups);
    expect(m.splits.test.rows).toBe(all.splits.test.rows);
    const card = readFileSync(join(cut, 'README.md'), 'utf8');
    expect(card).toMatch(
      /\| split \| rows \| questions \| distinct SQL \| rows per question \| rows per SQL \| duplicates dropped \|/u,
    );
    expect(card).toMatch(/at most 10 rows/u);
    const bad = runCli(['export', '--dir', cut, '--variants-per-question', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--variants-per-question must be a whole number of at least 1 or all, got "0"/u);
  });
});

describe('the Hub folder', () => {
  it('export --hub-dir lays out exactly the allow-listed files: no databases, no stage inputs; the folder checks clean', () => {
    // A whole generated directory, databases and stage inputs included.
    const dir = join(tmp.dir, 'hub-source');
    cpSync(base, dir, { recursive: true });
    expect(existsSync(join(dir, 'pglite')) && existsSync(join(dir, 'edge')) && existsSync(join(dir, 'questions'))).toBe(
      true,
    );
    const out = join(tmp.dir, 'hub');
    const run = runCli(['export', '--dir', dir, '--hub-dir', out]);
    expect(run.status, run.stderr).toBe(0);
    const list = lines(join(dir, 'hub-files.txt'));
    const walk = (d: string, prefix = ''): string[] =>
      readdirSync(d).flatMap((n) =>
        statSync(join(d, n)).isDirectory() ? walk(join(d, n), `${prefix}${n}/`) : [`${prefix}${n}`],
      );
    expect(walk(out).sort()).toEqual(list);
    for (const f of list) expect(readFileSync(join(out, f)).equals(readFileSync(join(dir, f))), f).toBe(true);
    expect(
      list.some(
        (f) =>
          f.startsWith('pglite/') || f.startsWith('edge/') || f.startsWith('questions/') || f === 'rejections.jsonl',
      ),
    ).toBe(false);
    for (const f of [
      'README.md',
      'manifest.json',
      'record.schema.json',
      '.gitattributes',
      'finetune/dataset_info.json',
      'finetune/axolotl.yaml',
    ])
      expect(list).toContain(f);
    expect(runCli(['check', '--dir', out]).status).toBe(0);
    const again = runCli(['export', '--dir', dir, '--hub-dir', out]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/--hub-dir .*: exists and is not an empty directory/u);
  });
});

describe('the Hub folder of an export already made', () => {
  it('--hub-dir copies the export that is there, checked, and refuses to re-export it with other settings', () => {
    const dir = join(tmp.dir, 'hub-skeleton');
    cpSync(base, dir, { recursive: true });
    const made = runCli(['export', '--dir', dir, '--split', 'skeleton', '--formats', 'jsonl,chat']);
    expect(made.status, made.stderr).toBe(0);
    const manifest = readFileSync(join(dir, 'manifest.json'));
    // Other settings (here the default split, and the default formats) are refused in one line, nothing copied.
    const other = join(tmp.dir, 'hub-other');
    const refused = runCli(['export', '--dir', dir, '--split', 'random', '--hub-dir', other]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /--hub-dir: .* holds an export made with other settings \(split "skeleton", not "random"; formats \["chat","jsonl"\], not \[.*\]\)/u,
    );
    expect(existsSync(other)).toBe(false);
    // --hub-dir alone, and with the settings the export was made with, copy it as it is.
    for (const [name, extra] of [
      ['hub-alone', []],
      ['hub-same', ['--split', 'skeleton', '--formats', 'chat,jsonl']],
    ] as const) {
      const out = join(tmp.dir, name);
      const run = runCli(['export', '--dir', dir, ...extra, '--hub-dir', out]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/files of the checked export for the Hub/u);
      expect(readFileSync(join(dir, 'manifest.json'))).toEqual(manifest);
      expect(readFileSync(join(out, 'manifest.json'))).toEqual(manifest);
      expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).export.split).toBe('skeleton');
      expect(runCli(['check', '--dir', out]).status).toBe(0);
    }
  });
});

describe('token counting', () => {
  it('counts a schema once and the question apart, as the whole text counts', () => {
    const p = json<{ prompt: Message[] }>(join(base, 'finetune/train.prompt.jsonl'));
    for (const row of p.slice(0, 50)) {
      const user = row.prompt[1]!.content;
      const cut = user.indexOf('\n\nQuestion: ') + 2;
      expect(countTokens(user.slice(0, cut)) + countTokens(user.slice(cut))).toBe(countTokens(user));
    }
  });
});
