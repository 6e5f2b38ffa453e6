/**
 * Untrusted SQL on SQLite: how many texts per second the SQLite executor runs
 * (`createSqliteExecutor`: our lexer, SQLite's own reading in a child process, caps), as
 * `eval --engine sqlite` runs a model's predictions: every text distinct (a trailing
 * comment), the paper suite's queries compiled for SQLite on every variant SQLite holds, on
 * the SQLite files of a small social_media build. The lexer's own rate is given beside.
 *
 *   npm run bench:untrusted-sqlite [-- --n 3000 --processes 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { buildRelationalSchema } from '../generator/variants/build-schema.ts';
import { buildDataset } from '../generator/assemble/build-dataset.ts';
import { compileSqlite } from '../generator/compile/sqlite/compile-sqlite.ts';
import { PAPER_SOCIAL_MEDIA } from '../generator/suites/paper-social-media.ts';
import { guardSqlite } from '../generator/execute/sqlite-guard.ts';
import { createSqliteExecutor } from '../generator/execute/untrusted-sqlite.ts';

const { values } = parseArgs({ options: { n: { type: 'string' }, processes: { type: 'string' } } });
const n = Number(values.n ?? 3000);
const processes = Number(values.processes ?? 2);
const say = (s: string) => process.stdout.write(`${s}\n`);
const domain = BUILT_IN_DOMAINS['social_media'];
if (!domain) throw new Error('social_media is a built-in domain');
const index = indexDomain(domain);
say(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; social_media, scale small, all variants, ${n} distinct texts`,
);

const out = mkdtempSync(join(tmpdir(), 'equisql-bench-untrusted-sqlite-'));
try {
  const { manifest } = await buildDataset({
    dataset: 'social_media',
    domain,
    variants: 'all',
    scale: 'small',
    seed: 1,
    profile: 'default',
    target: { kind: 'pglite', dir: join(out, 'pglite') },
    out,
    engines: ['postgres', 'sqlite'],
  });
  const base = manifest.variants.flatMap((v) =>
    PAPER_SOCIAL_MEDIA.flatMap((q) => {
      try {
        return [
          { file: `sqlite/${v.name}.sqlite`, sql: compileSqlite(index, buildRelationalSchema(index, v.spec), q.query) },
        ];
      } catch {
        return []; // a construct SQLite cannot say on this variant
      }
    }),
  );
  const texts = Array.from({ length: n }, (_, i) => ({
    file: base[i % base.length]!.file,
    sql: `${base[i % base.length]!.sql}\n-- prediction ${i}`,
  }));
  let t = performance.now();
  for (const q of texts) guardSqlite(q.sql, q.file);
  const lexerRate = n / ((performance.now() - t) / 1000);
  const executor = createSqliteExecutor(out, { timeoutMs: 30_000, processes });
  try {
    // The children's start and each file's first open, before the clock.
    await Promise.all(manifest.variants.map((v) => executor.run(`sqlite/${v.name}.sqlite`, 'SELECT 1')));
    t = performance.now();
    const outcomes = await Promise.all(texts.map((q) => executor.run(q.file, q.sql)));
    const seconds = (performance.now() - t) / 1000;
    const kinds = new Map<string, number>();
    for (const o of outcomes) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
    say(
      `\nSQLite (${processes} process${processes === 1 ? '' : 'es'}): ${n} texts in ${seconds.toFixed(1)} s = ${(n / seconds).toFixed(0)} texts/s; outcomes ${[...kinds].map(([k, c]) => `${k} ${c}`).join(', ')}`,
    );
    say(`  the lexer alone (no database): ${lexerRate.toFixed(0)} texts/s on one thread`);
  } finally {
    await executor.close();
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
