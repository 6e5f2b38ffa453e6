/**
 * Loads every variant's dump of an export (or a build) into a PostgreSQL database of its own,
 * named by its `db_id` — the variant's schema id, `<dataset>/<variant>`, as the evaluator
 * files (`equisql export --formats bird,defog,spider`) name it — so BIRD's, defog
 * sql-eval's or any other evaluator that connects to one database per `db_id` finds it.
 *
 *   npm run load-dumps -- --dir DIR [--prefix P] [--url postgres://…]
 *
 * `--url` defaults to DATABASE_URL (the server to create the databases on; its own database
 * is only used to create and drop them). `--prefix P` puts P before every name (`P` +
 * `retail/full_sti`). Names are quoted by psql itself (`:"name"`), never pasted into SQL.
 *
 * Idempotent: a database whose comment records the SHA-256 of its dump is left as it is; any
 * other database of that name (an older dump, a load that stopped half-way) is dropped and
 * loaded again, in one transaction (`psql --single-transaction -v ON_ERROR_STOP=1`), and
 * marked only once the load has succeeded. Prints `db_id<TAB>database` for each on stdout,
 * progress on stderr; exit 2 on bad input, 1 when psql fails.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** PostgreSQL cuts a longer name to its first 63 bytes, which could merge two variants' databases. */
const MAX_NAME_BYTES = 63;

function fail(message: string, code: number): never {
  process.stderr.write(`load-dumps: ${message}\n`);
  process.exit(code);
}

/** schema id → dump file, from the export's manifest, else from the build's `build.json`. */
function dumpsOf(dir: string): [string, string][] {
  const manifestPath = join(dir, 'manifest.json');
  if (existsSync(manifestPath)) {
    const schemas = (
      JSON.parse(readFileSync(manifestPath, 'utf8')) as { export?: { schemas?: Record<string, { dump: string }> } }
    ).export?.schemas;
    if (schemas) return Object.entries(schemas).map(([id, s]) => [id, join(dir, s.dump)]);
  }
  const buildPath = join(dir, 'build.json');
  if (!existsSync(buildPath))
    fail(`${dir}: neither an export (manifest.json with an export section) nor a build (build.json)`, 2);
  const build = JSON.parse(readFileSync(buildPath, 'utf8')) as { dataset: string; variants: { name: string }[] };
  return build.variants.map((v) => [`${build.dataset}/${v.name}`, join(dir, 'dumps', `${v.name}.sql`)]);
}

/** Runs psql on `url` with `sql` on stdin (variables given with -v); its stdout, or exit 1 naming what failed. */
function psql(url: string, what: string, args: readonly string[], sql?: string): string {
  const run = spawnSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url, ...args], {
    input: sql ?? '',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) fail(`${what}: cannot run psql: ${run.error.message}`, 1);
  if (run.status !== 0) fail(`${what}: psql failed: ${run.stderr.trim().split('\n')[0] ?? ''}`, 1);
  return run.stdout;
}

/** The server URL with `database` as its database (percent-encoded: a schema id holds a `/`). */
function databaseUrl(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

const { values } = (() => {
  try {
    return parseArgs({
      options: { dir: { type: 'string' }, prefix: { type: 'string', default: '' }, url: { type: 'string' } },
      strict: true,
    });
  } catch (error) {
    return fail((error as Error).message.split('\n')[0] as string, 2);
  }
})();
if (values.dir === undefined) fail('--dir DIR is required (an export or a build directory)', 2);
const dir = resolve(values.dir);
const server = values.url ?? process.env['DATABASE_URL'];
if (!server) fail('no server: give --url postgres://… or set DATABASE_URL', 2);
try {
  new URL(server);
} catch {
  fail('--url / DATABASE_URL is not a URL', 2);
}

const dumps = dumpsOf(dir);
for (const [id, dump] of dumps) {
  const name = `${values.prefix}${id}`;
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES)
    fail(
      `database name "${name}" is longer than ${MAX_NAME_BYTES} bytes (PostgreSQL would cut it); use a shorter --prefix`,
      2,
    );
  if (name.includes('\u0000')) fail(`database name of ${id} holds a NUL`, 2);
  if (!existsSync(dump)) fail(`${dump}: no dump for ${id}`, 2);
}
for (const [id, dump] of dumps) {
  const name = `${values.prefix}${id}`;
  const marker = `equisql dump sha256 ${createHash('sha256').update(readFileSync(dump)).digest('hex')}`;
  const vars = ['-v', `db=${name}`, '-v', `marker=${marker}`];
  const current = psql(
    server,
    name,
    vars,
    "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = :'db';\n",
  ).trim();
  if (current === marker) {
    process.stderr.write(`load-dumps: ${name}: up to date\n`);
  } else {
    psql(server, name, vars, 'DROP DATABASE IF EXISTS :"db" WITH (FORCE);\nCREATE DATABASE :"db";\n');
    psql(databaseUrl(server, name), `${name}: ${dump}`, ['--single-transaction', '-f', dump]);
    psql(databaseUrl(server, name), name, vars, 'COMMENT ON DATABASE :"db" IS :\'marker\';\n');
    process.stderr.write(`load-dumps: ${name}: loaded ${dump}\n`);
  }
  process.stdout.write(`${id}\t${name}\n`);
}
