// @tier long
/**
 * The carriage-return bypass, through every door untrusted SQL comes in by: `equisql run`, a
 * user's suite file, and a model's back-translation (`questions --writer llm`, its endpoint a
 * chat-completions server this test runs on 127.0.0.1), on PGlite and on the server.
 *
 * PostgreSQL ends a `--` comment at a line feed or a carriage return (scan.l: `non_newline
 * [^\n\r]`); a reader of ours that waited for the line feed alone took
 *
 *     SELECT --\r'a\' AS x; COMMIT; UPDATE …; COPY (SELECT 1) TO PROGRAM $$touch FILE$$; --' AS z
 *
 * for one SELECT (the lexer: a SELECT and a comment; node-sql-parser, which reads `\'` as an
 * escape: `SELECT '…' AS z`), and the simple-protocol batch ran the smuggled COMMIT, the
 * UPDATE (as the connecting user) and the shell command. Each text here is built around every character
 * PostgreSQL ends a comment on, and around the characters that look like line ends but do
 * not end one (vertical tab, form feed, NEL, the Unicode line and paragraph separators). Each
 * must leave no file written, no command run, and every table as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database, type DatabaseTarget } from '../../generator/database/database.ts';
import { runReadOnly } from '../../generator/execute/run-query.ts';
import { runCli, runCliAsync } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { startChatServer, type ChatServer } from '../helpers/chat-completions-server.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

/** Every character PostgreSQL ends a `--` comment on. */
const COMMENT_ENDS = ['\n', '\r'] as const;
/** Characters that end a line somewhere, but not a comment in PostgreSQL: the comment goes on. */
const NOT_COMMENT_ENDS = ['\u000b', '\f', '\u0085', '\u2028', '\u2029'] as const;

const SCHEMA = 'social_media__full_sti';
const name = (c: string): string => `U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A path no run shares, for the file the smuggled shell command would create. */
const fileFor = (label: string): string =>
  join('/tmp', `equisql-comment-ends-${process.pid}-${label.replace(/[^A-Za-z0-9]+/gu, '-')}`);

/** The hostile text: a comment ended by `c`, then (to a reader that missed the end) a string; to PostgreSQL, statements. */
function hostile(c: string, file: string): string {
  return `SELECT --${c}'a\\' AS x; COMMIT; UPDATE ${SCHEMA}.tags SET name = $$pwned$$; COPY (SELECT 1) TO PROGRAM $$touch ${file}$$; --' AS z`;
}

/** Every table of the variant schemas, as text: what "no row changed" is checked against. */
async function snapshot(target: DatabaseTarget): Promise<string> {
  const db: Database = await openDatabase(target);
  try {
    const tables = await db.query(
      "SELECT table_schema || '.' || table_name AS t FROM information_schema.tables WHERE table_schema LIKE 'social_media__%' ORDER BY 1",
    );
    const parts: string[] = [];
    for (const { t } of tables) {
      const [schema, table] = String(t).split('.') as [string, string];
      const rows = await db.queryText(
        `SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM "${schema}"."${table}" AS x`,
      );
      parts.push(`${t}=${rows.rows[0]?.[0]}`);
    }
    return parts.join('\n');
  } finally {
    await db.close();
  }
}

function doors(
  label: string,
  setup: (tmp: string) => Promise<{ dir: string; target: DatabaseTarget; env: Record<string, string | undefined> }>,
) {
  let dir: string;
  let target: DatabaseTarget;
  let env: Record<string, string | undefined>;
  let before: string;
  let server: ChatServer;
  const files: string[] = [];
  const tmp = tempDir(`comment-ends-${label}`);

  beforeAll(async () => {
    ({ dir, target, env } = await setup(tmp.dir));
    before = await snapshot(target);
    expect(before).toMatch(/social_media__full_sti\.tags=[0-9a-f]{32}/u);
    server = await startChatServer();
  }, 600_000);

  afterAll(async () => {
    for (const f of files) rmSync(f, { force: true });
    await server?.close();
    tmp.remove();
  });

  const file = (door: string, c: string): string => {
    const f = fileFor(`${label}-${door}-${name(c)}`);
    files.push(f);
    return f;
  };

  it('equisql run refuses the text for every character that ends a comment, in one line, and runs the others harmlessly', async () => {
    for (const c of COMMENT_ENDS) {
      const f = file('run', c);
      const r = runCli(['run', '--dir', dir, '--variant', 'full_sti', hostile(c, f)], { env });
      expect(r.status, name(c)).toBe(2);
      // Several statements, or the dollar quote one reader cannot be sure of: refused in one line.
      expect(r.stderr, name(c)).toMatch(/^equisql run: schema social_media__full_sti: refused: [^\n]+\n$/u);
      expect(existsSync(f), name(c)).toBe(false);
    }
    // One of the others through the command (each run opens the database: seconds); all of them in process below.
    for (const c of ['\u2028']) {
      const f = file('run', c);
      // To PostgreSQL the rest of the text is a comment: the query is a bare SELECT (one row, no column).
      const r = runCli(['run', '--dir', dir, '--variant', 'full_sti', '--format', 'json', hostile(c, f)], { env });
      expect(r.stderr, name(c)).toBe('');
      expect(r.status, name(c)).toBe(0);
      expect(r.stdout, name(c)).toBe('{}\n');
      expect(existsSync(f), name(c)).toBe(false);
    }
    expect(await snapshot(target)).toBe(before);
  }, 300_000);

  it('the executor runs the text harmlessly for every character that only seems to end a line', async () => {
    const db = await openDatabase(target);
    try {
      for (const c of NOT_COMMENT_ENDS) {
        const f = file('executor', c);
        expect((await runReadOnly(db, SCHEMA, hostile(c, f))).rows, name(c)).toEqual([[]]);
        expect(existsSync(f), name(c)).toBe(false);
      }
      for (const c of COMMENT_ENDS)
        await expect(runReadOnly(db, SCHEMA, hostile(c, file('executor', c))), name(c)).rejects.toThrow(
          /^schema social_media__full_sti: refused: /u,
        );
    } finally {
      await db.close();
    }
    expect(await snapshot(target)).toBe(before);
  }, 300_000);

  it('a suite whose query carries the text in a value runs it as data, nothing more', async () => {
    const chars = [...COMMENT_ENDS, ...NOT_COMMENT_ENDS];
    const suite = join(tmp.dir, 'hostile.jsonl');
    const made = chars.map((c) => ({ c, f: file('suite', c) }));
    writeFileSync(
      suite,
      made
        .map(
          ({ c, f }, i) =>
            `${JSON.stringify({
              id: `hostile-${i}`,
              query: {
                kind: 'select',
                from: { entity: 'Tag', alias: 't' },
                select: [{ name: 'n', expr: { kind: 'aggregate', fn: 'count' } }],
                where: {
                  kind: 'compare',
                  op: '<>',
                  left: { kind: 'attribute', alias: 't', attribute: 'name' },
                  right: { kind: 'literal', value: hostile(c, f) },
                },
              },
            })}\n`,
        )
        .join(''),
    );
    const r = await runCliAsync(['suite', '--dir', dir, '--suite', suite, '--json'], { env });
    expect(r.stderr).toMatch(new RegExp(`all ${chars.length} questions agree on 2 variants`, 'u'));
    expect(r.status).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sql: string; row_count: number });
    // Every variant counted the tags (none is named like the text): the text was a value.
    expect(lines).toHaveLength(chars.length * 2);
    for (const l of lines) expect(l.row_count).toBe(1);
    for (const { f } of made) expect(existsSync(f)).toBe(false);
    expect(await snapshot(target)).toBe(before);
  }, 300_000);

  it('a back-translation carrying the text is refused or read as a comment; its question is not accepted on it', async () => {
    const config = join(tmp.dir, 'equisql.config.ts');
    writeFileSync(
      config,
      "export default { datasets: {}, llm: { model: 'local-model', prices: { 'local-model': { input: 1, output: 1 } } } };\n",
    );
    const rejectionsFile = join(dir, 'questions-rejections.jsonl');
    const rejectionLines = (): string[] =>
      existsSync(rejectionsFile)
        ? readFileSync(rejectionsFile, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [];
    // A CR LF pair too, as a model's reply written on Windows ends its lines.
    for (const c of [...COMMENT_ENDS, '\r\n', '\u2028']) {
      const f = file('llm', c);
      server.backTranslation = hostile(c, f);
      const r = await runCliAsync(
        [
          'questions',
          '--dir',
          dir,
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
        {
          env: { ...env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'local-key' },
        },
      );
      expect([0, 1], `${name(c)}: ${r.stderr}`).toContain(r.status);
      expect(existsSync(f), name(c)).toBe(false);
      // The file is rebuilt by each run: it holds this run's rejections.
      const rejections = rejectionLines().map((l) => JSON.parse(l) as { reason: string });
      expect(rejections.length, name(c)).toBeGreaterThan(0);
      // Refused by the guard where PostgreSQL ends the comment; a bare SELECT (not the answer) where it does not.
      for (const rej of rejections)
        expect(rej.reason, name(c)).toMatch(
          c !== '\u2028' ? /refused: /u : /back-translation|answer|differ|disagree/iu,
        );
      // Rejected: no question of the model's is kept on it.
      const kept = readFileSync(join(dir, 'questions', 'social_media.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { writer: { kind: string } });
      expect(
        kept.filter((q) => q.writer.kind === 'llm'),
        name(c),
      ).toEqual([]);
    }
    server.backTranslation = undefined;
    expect(await snapshot(target)).toBe(before);
  }, 600_000);
}

const NO_SERVER = { DATABASE_URL: undefined };

describe('comment ends on PGlite', () =>
  doors('pglite', async (tmp) => {
    const dir = join(tmp, 'out');
    const r = runCli(
      [
        'generate',
        '--dataset',
        'social_media',
        '--variants',
        'full_sti,full_cti',
        '--scale',
        'tiny',
        '--groups',
        '2',
        '--out',
        dir,
      ],
      { env: NO_SERVER },
    );
    expect(r.status, r.stderr).toBe(0);
    return { dir, target: { kind: 'pglite', dir: join(dir, 'pglite') }, env: NO_SERVER };
  }));

describeServer('comment ends on the server', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  doors('server', async (tmp) => {
    const fresh = await createDatabase(serverUrl, 'comment_ends');
    drop = fresh.drop;
    const dir = join(tmp, 'out');
    const r = runCli(
      [
        'generate',
        '--dataset',
        'social_media',
        '--variants',
        'full_sti,full_cti',
        '--scale',
        'tiny',
        '--groups',
        '2',
        '--out',
        dir,
        '--db',
        fresh.url,
      ],
      { env: NO_SERVER },
    );
    expect(r.status, r.stderr).toBe(0);
    return { dir, target: { kind: 'postgres', url: fresh.url }, env: { DATABASE_URL: fresh.url } };
  });
});
