/**
 * 10,000 seeded mutants of hostile texts against the guard: comments (line, nested block),
 * quotes, dollar quotes, `E''` and `U&''` strings, backslashes, every character that ends or
 * seems to end a line (line feed, carriage return, vertical tab, form feed, NEL, the Unicode
 * line and paragraph separators), smuggled statements. Whenever the guard accepts a text:
 * - PostgreSQL's parser, read here by a scan of its own (not the guard's walk), sees exactly
 *   one SELECT, naming only the variant's relations (or its own CTEs) and listed functions,
 *   with no INTO, no locking clause, no SQL value function and no reg* type;
 * - on the server the executor runs it in a read-only transaction as the reader role: the
 *   variant has a view `probe` of `current_user` and `transaction_read_only`, which the
 *   seeds read, and every row of it that comes back says `equisql_reader`, `on`;
 * and after all of them no file was written and no row changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, rmSync } from 'node:fs';
import { createRng } from '../../generator/common/rng.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { guardQuery, READ_ONLY_FUNCTIONS, type GuardScope } from '../../generator/execute/query-guard.ts';
import { createUntrustedExecutor } from '../../generator/execute/untrusted-query.ts';
import { loadPgParser, parsePostgres } from '../../generator/sql/pg-parser.ts';
import { READER_ROLE } from '../../generator/database/reader-role.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const FILE = `/tmp/equisql-guard-fuzz-${process.pid}`;
const SCOPE: GuardScope = { pgSchema: 'fz', tables: new Set(['probe', 't']) };

const SEEDS = [
  'SELECT who, ro FROM probe',
  "SELECT 1 AS y --\r'a\\' AS x; COMMIT; SELECT who FROM probe; --' AS z",
  'SELECT who FROM probe /* nested /* c */ ; DELETE FROM t */',
  "SELECT 'it''s' AS s, who, ro FROM probe WHERE who <> $$x$$",
  "SELECT E'\\'' AS e, who FROM probe; COMMIT",
  "SELECT U&'\\0041' AS u, ro FROM probe",
  'SELECT "who", ro FROM probe -- tail\u2028; UPDATE t SET name = \'x\'',
  'WITH p AS (SELECT who, ro FROM probe) SELECT * FROM p',
  'SELECT who FROM ONLY probe UNION SELECT rolname::text FROM pg_authid',
  "SELECT ro FROM probe WHERE 'now'::date IS NOT NULL",
  `SELECT who, ro FROM probe, t WHERE t.id = 1 -- ' ; COPY t TO PROGRAM 'touch ${FILE}'`,
  'SELECT p.who, count(*) OVER () FROM probe AS p JOIN t ON true GROUP BY p.who, t.id',
  "SELECT who FROM probe WHERE ro = 'on' AND EXISTS (SELECT 1 FROM t WHERE t.name LIKE 'o%')",
  'SELECT (SELECT who FROM probe) AS w, lower(name) FROM t ORDER BY 1 LIMIT 1',
];

const PIECES = [
  "'",
  '"',
  '$$',
  '$q$',
  '$1',
  '/*',
  '*/',
  '--',
  ';',
  '\n',
  '\r',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u000b',
  '\f',
  '\u00a0',
  "E'",
  "e'",
  "U&'",
  'U&"',
  "N'",
  "B'",
  '\\',
  "''",
  '""',
  " UESCAPE '!'",
  ' COMMIT; ',
  ' ROLLBACK; ',
  ' BEGIN; ',
  " UPDATE t SET name = 'pwned'; ",
  ` COPY (SELECT 1) TO PROGRAM $$touch ${FILE}$$; `,
  " COPY (SELECT 1) TO PROGRAM 'touch " + FILE + "'; ",
  ' SET ROLE NONE; ',
  ' RESET ROLE; ',
  ' SET SESSION AUTHORIZATION DEFAULT; ',
  " set_config('role', 'none', false) ",
  ' pg_sleep(0) ',
  ' current_user ',
  ' localtimestamp ',
  ' FROM ONLY pg_authid ',
  '::regclass',
  ' ONLY ',
  ' pg_catalog.',
  ' fz.',
  ' secret.',
  ' (',
  ')',
  ',',
  ' who ',
  ' ro ',
  ' probe ',
  ' t ',
  ' AS ',
  ' FROM ',
  ' WHERE ',
  ' UNION ',
  ' INTO x ',
  ' FOR UPDATE ',
  ' RETURNING * ',
  ' TABLE t ',
  ' xmin ',
  ' lower(',
  ' count(*) ',
];

function mutate(text: string, rng: ReturnType<typeof createRng>): string {
  let s = text;
  for (let k = rng.int(1, 4); k > 0; k--) {
    const at = rng.int(0, s.length);
    const op = rng.int(0, 3);
    if (op <= 1) s = s.slice(0, at) + (PIECES[rng.int(0, PIECES.length - 1)] as string) + s.slice(at);
    else if (op === 2) s = s.slice(0, at) + s.slice(at + rng.int(1, 6));
    else s = s.slice(0, at) + s.slice(at, at + rng.int(1, 12)) + s.slice(at);
  }
  return s;
}

/** The 10,000 mutants, the same on every run. */
function mutants(): string[] {
  const rng = createRng('guard-fuzz-10000');
  return Array.from({ length: 10_000 }, (_, i) => mutate(SEEDS[i % SEEDS.length] as string, rng));
}

/** Every node of a given type anywhere in a parse tree. */
function nodesOf(tree: unknown, type: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === type && x !== null && typeof x === 'object') found.push(x as Record<string, unknown>);
        visit(x);
      }
    }
  };
  visit(tree);
  return found;
}

const names = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((n) => String((n as { String?: { sval?: string } }).String?.sval ?? '?')) : [];

/** What PostgreSQL's parser makes of an accepted text, read without the guard's walk: the reasons it should not have been accepted. */
function objections(text: string): string[] {
  const tree = parsePostgres(text);
  const out: string[] = [];
  if (tree.stmts.length !== 1) out.push(`${tree.stmts.length} statements`);
  const kinds = tree.stmts.map((s) => Object.keys(s.stmt)[0]);
  if (kinds.some((k) => k !== 'SelectStmt')) out.push(`statements ${kinds.join(', ')}`);
  const ctes = new Set(nodesOf(tree, 'CommonTableExpr').map((c) => String(c['ctename'])));
  for (const r of nodesOf(tree, 'RangeVar')) {
    const schema = r['schemaname'] as string | undefined;
    const rel = String(r['relname']);
    if (
      r['catalogname'] !== undefined ||
      (schema !== undefined && schema !== 'fz') ||
      !(SCOPE.tables.has(rel) || (schema === undefined && ctes.has(rel)))
    )
      out.push(`relation ${schema ?? ''}.${rel}`);
  }
  for (const f of nodesOf(tree, 'FuncCall')) {
    const n = names(f['funcname']);
    if ((n.length > 1 && n[0] !== 'pg_catalog') || !READ_ONLY_FUNCTIONS.has(n[n.length - 1] as string))
      out.push(`function ${n.join('.')}`);
  }
  for (const t of nodesOf(tree, 'TypeName')) if (/^reg/u.test(names(t['names']).pop() ?? '')) out.push('a reg* type');
  for (const k of ['SQLValueFunction', 'intoClause', 'lockingClause', 'ParamRef', 'RangeTableSample'])
    if (nodesOf(tree, k).length > 0) out.push(k);
  return out;
}

const texts = mutants();
const accepted: string[] = [];

describe('the guard under 10,000 seeded mutants of hostile texts', () => {
  beforeAll(() => loadPgParser());

  it("accepts only what PostgreSQL's parser reads as one SELECT over allowed relations and functions", () => {
    let refused = 0;
    for (const text of texts) {
      try {
        guardQuery(text, SCOPE);
      } catch (error) {
        expect((error as Error).message, JSON.stringify(text)).toMatch(/^schema fz: refused: [^\n\r\u2028\u2029]+$/u);
        refused++;
        continue;
      }
      expect(objections(text), JSON.stringify(text)).toEqual([]);
      accepted.push(text);
    }
    // Both outcomes are common, or the mutants test nothing.
    expect(accepted.length).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(3000);
  }, 300_000);
});

describeServer('the accepted mutants on the server', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  const connections: Database[] = [];
  let before: unknown;
  beforeAll(async () => {
    const fresh = await createDatabase(serverUrl, 'guard_fuzz');
    drop = fresh.drop;
    for (let i = 0; i < 4; i++) connections.push(await openDatabase({ kind: 'postgres', url: fresh.url }));
    await connections[0]?.exec(`
      CREATE SCHEMA fz; CREATE SCHEMA secret;
      CREATE TABLE fz.t (id integer PRIMARY KEY, name text); INSERT INTO fz.t VALUES (1, 'one'), (2, 'two');
      CREATE TABLE secret.t (id integer); INSERT INTO secret.t VALUES (9);
      CREATE VIEW fz.probe AS SELECT current_user::text AS who, current_setting('transaction_read_only') AS ro;
    `);
    before = await connections[0]?.query(
      "SELECT (SELECT string_agg(id || name, ',' ORDER BY id) FROM fz.t) AS t, (SELECT count(*) FROM secret.t) AS s",
    );
  }, 120_000);
  afterAll(async () => {
    rmSync(FILE, { force: true });
    for (const c of connections) await c.close();
    await drop?.();
  });

  it('runs each in a read-only transaction as the reader role, and none writes or runs anything', async () => {
    await loadPgParser();
    if (accepted.length === 0)
      for (const text of texts)
        try {
          guardQuery(text, SCOPE);
          accepted.push(text);
        } catch {
          /* refused */
        }
    const executor = createUntrustedExecutor(connections, { timeoutMs: 5000, maxRows: 1000 });
    let probed = 0;
    const kinds = new Map<string, number>();
    // In batches of a few hundred at a time across the pool.
    for (let start = 0; start < accepted.length; start += 400) {
      const outcomes = await Promise.all(accepted.slice(start, start + 400).map((text) => executor.run('fz', text)));
      outcomes.forEach((o, i) => {
        kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
        const text = JSON.stringify(accepted[start + i]);
        expect(o.kind, `${text}: ${'message' in o ? o.message : ''}`).not.toBe('refused');
        if (o.kind !== 'rows') return;
        const who = o.columns.indexOf('who');
        const ro = o.columns.indexOf('ro');
        for (const row of o.rows) {
          if (who >= 0 && (row[who] === READER_ROLE || row[who] === 'postgres')) {
            expect(row[who], text).toBe(READER_ROLE);
            probed++;
          }
          if (ro >= 0 && (row[ro] === 'on' || row[ro] === 'off')) expect(row[ro], text).toBe('on');
        }
      });
    }
    expect(probed).toBeGreaterThan(200);
    expect(kinds.get('rows') ?? 0).toBeGreaterThan(accepted.length / 2);
    expect(existsSync(FILE)).toBe(false);
    const db = connections[0] as Database;
    expect(
      await db.query(
        "SELECT (SELECT string_agg(id || name, ',' ORDER BY id) FROM fz.t) AS t, (SELECT count(*) FROM secret.t) AS s",
      ),
    ).toEqual(before);
    for (const c of connections) {
      const [state] = await c.query("SELECT current_user AS who, current_setting('transaction_read_only') AS ro");
      expect(state).toEqual({ who: 'postgres', ro: 'off' });
    }
  }, 600_000);
});
