/**
 * Generation benchmark: verified groups per hour and (group × variant) records per hour,
 * with the share of wall time inside the database, on PGlite and on a server
 * (DATABASE_URL or --db); plus what the groups are like: acceptance rate and rejection
 * reasons, distinct skeletons and structure hashes, the share whose SQL differs between at
 * least three variants, the difficulty mix, and IR constructs no group uses.
 *
 *   npm run bench:generate [-- --dataset social_media --groups 200 --scale small --concurrency 2 --db postgres://… --mix --lookahead K --seed N]
 */
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { parseGrammar } from '../generator/grammar/pcfg.ts';
import type { ScalePreset } from '../generator/instance/conceptual-instance.ts';
import { openDatabase, type Database } from '../generator/database/database.ts';
import { prepareBuilds } from '../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../generator/generate/query-runner.ts';
import { generateGroups } from '../generator/run/generate-groups.ts';
import { groupsPath, readJsonLines } from '../generator/records/groups-file.ts';
import type { GroupRecord } from '../generator/records/group-record.ts';
import { IR_CONSTRUCTS, irConstructs } from '../generator/generate/ir-coverage.ts';
import { runReadOnly, runReadOnlyMany } from '../generator/execute/run-query.ts';
import { runUntrusted } from '../generator/execute/untrusted-query.ts';
import { compileSql } from '../generator/compile/compile-query.ts';
import type { CompiledSql } from '../generator/compile/compiled-sql.ts';
import type { RelationalSchema } from '../generator/variants/relational-schema.ts';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string' },
    groups: { type: 'string' },
    scale: { type: 'string' },
    concurrency: { type: 'string' },
    db: { type: 'string' },
    'skip-pglite': { type: 'boolean' },
    mix: { type: 'boolean' },
    lookahead: { type: 'string' },
    seed: { type: 'string' },
  },
});
const dataset = values.dataset ?? 'social_media';
const groups = Number(values.groups ?? 200);
const scale = (values.scale ?? 'small') as ScalePreset;
const concurrency = Number(values.concurrency ?? 2);
const serverUrl = values.db ?? process.env['DATABASE_URL'];
// `--mix`: the built-in datasets' difficulty mix, as `equisql generate` uses by default.
const difficultyMix = values.mix ? { easy: 0.2, medium: 0.35, hard: 0.25, extra: 0.2 } : undefined;
// `--seed`: the generation seed (the instances stay those of seed 1), to see how far a figure moves by chance.
const seed = Number(values.seed ?? 1);
const lookahead = values.lookahead === undefined ? undefined : Number(values.lookahead);
const domain = BUILT_IN_DOMAINS[dataset];
if (!domain) throw new Error(`unknown dataset ${dataset}`);
const index = indexDomain(domain);
const grammar = parseGrammar(readFileSync(new URL('../grammars/spider.pcfg', import.meta.url), 'utf8'), 'spider.pcfg');
const say = (s: string) => process.stdout.write(`${s}\n`);
say(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ${dataset}, scale ${scale}, all variants, ${groups} groups, seed ${seed}`,
);

async function run(label: string, connections: Database[]): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'equisql-bench-generate-'));
  try {
    const builds = await prepareBuilds({
      dataset,
      domain: domain!,
      variants: 'all',
      scale,
      seed: 1,
      db: connections[0] as Database,
      out,
    });
    const runner = createQueryRunner(connections, 30_000);
    const cpuAtStart = process.cpuUsage();
    const report = await generateGroups({
      dataset,
      out,
      index,
      instance: builds.instance,
      instanceHashes: { main: builds.main.instance_hash, ...(builds.edge ? { edge: builds.edge.instance_hash } : {}) },
      variants: builds.variants,
      runner,
      grammar,
      seed,
      groups,
      settings: { bench: true },
      ...(difficultyMix ? { difficultyMix } : {}),
      ...(lookahead !== undefined ? { lookahead } : {}),
    });
    const cpu = process.cpuUsage(cpuAtStart);
    const hours = report.seconds.total / 3600;
    const records = report.accepted * builds.variants.length;
    const rejected = Object.values(report.rejected).reduce((a, b) => a + b, 0);
    say(
      `\n${label}: ${report.accepted} groups in ${report.seconds.total.toFixed(1)} s = ${Math.round(report.accepted / hours)} groups/hour, ${Math.round(records / hours)} (group × variant) records/hour; ${((100 * report.seconds.database) / report.seconds.total).toFixed(0)}% of wall time in the database`,
    );
    say(
      `  our own CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (${((cpu.user + cpu.system) / 1e3 / Math.max(1, report.accepted)).toFixed(1)} ms per accepted group); decided ahead ${lookahead ?? runner.lookahead} candidates, ${report.redecided} decided again at their turn, ${report.unused} decided but not needed`,
    );
    say(
      `  ${report.roundTrips} database round trips (queries and cost estimates): ${(report.roundTrips / Math.max(1, report.accepted)).toFixed(2)} per accepted group, ${((1000 * report.seconds.database) / Math.max(1, report.roundTrips)).toFixed(2)} ms of database wall time each; ${runner.remembered()} queries and estimates answered from memory (asked before)`,
    );
    say(
      `  candidates per accepted group ${(report.candidates / Math.max(1, report.accepted)).toFixed(3)}; our own CPU per candidate ${((cpu.user + cpu.system) / 1e3 / Math.max(1, report.candidates)).toFixed(2)} ms`,
    );
    say(
      `  candidates ${report.candidates}, accepted ${((100 * report.accepted) / report.candidates).toFixed(0)}%; rejected ${rejected}: ${Object.entries(
        report.rejected,
      )
        .filter(([, n]) => n > 0)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ')}`,
    );
    const lines = readJsonLines<GroupRecord>(groupsPath(out, dataset), false);
    const declared = (rel: string, dir: 'forward' | 'reverse') => {
      const r = index.relationship(rel);
      return dir === 'forward' ? r.to : r.from;
    };
    const seen = new Set<string>();
    for (const g of lines) for (const c of irConstructs(g.query, declared)) seen.add(c);
    say(
      `  distinct skeletons ${new Set(lines.map((g) => g.skeleton)).size}, distinct structure hashes ${new Set(lines.map((g) => g.structure_hash)).size}, SQL differs between ≥3 variants in ${(100 * report.differs3).toFixed(0)}%`,
    );
    say(
      `  difficulty: ${Object.entries(report.difficulty)
        .map(([d, n]) => `${d} ${((100 * n) / Math.max(1, lines.length)).toFixed(0)}%`)
        .join(', ')}`,
    );
    say(
      `  IR constructs used ${seen.size}/${IR_CONSTRUCTS.length}; unused: ${IR_CONSTRUCTS.filter((c) => !seen.has(c)).join(', ')}`,
    );
    await replay(connections[0] as Database, lines, builds.variants);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The executor's paths alone, on one connection: the main-instance queries of up to 60
 * accepted groups, replayed three ways, interleaved group by group (the order rotating) so
 * that the load of a shared machine weighs on each way alike: as untrusted text (the text
 * read back from the groups file: both readers of the guard, the extended protocol, pages
 * and caps; `runUntrusted`), as the compiler's own SQL one round trip a query
 * (`runReadOnly` of a `CompiledSql`), and one round trip a group (`runReadOnlyMany`, a
 * server only). The untrusted way's guard verdicts are computed on its first pass only.
 */
async function replay(
  db: Database,
  lines: readonly GroupRecord[],
  variants: readonly { name: string; schema: RelationalSchema; pgSchemas: { main: string } }[],
): Promise<void> {
  const ways: [string, (qs: { pgSchema: string; text: string; sql: CompiledSql }[]) => Promise<void>][] = [
    [
      'untrusted text',
      async (qs) => {
        for (const q of qs) {
          const o = await runUntrusted(db, q.pgSchema, q.text);
          if (o.kind !== 'rows') throw new Error(o.message);
        }
      },
    ],
    [
      'compiled, one round trip a query',
      async (qs) => {
        for (const q of qs) await runReadOnly(db, q.pgSchema, q.sql);
      },
    ],
    [
      'compiled, one round trip a group',
      async (qs) => {
        const o = await runReadOnlyMany(db, qs);
        if (o.failure) throw o.failure.error;
      },
    ],
  ];
  const spent = ways.map(() => 0);
  let queries = 0;
  const groups = lines.slice(0, 60);
  for (const [k, g] of groups.entries()) {
    const qs = variants.map((v) => ({
      pgSchema: v.pgSchemas.main,
      text: g.variants[v.name]?.sql as string,
      sql: compileSql(index, v.schema, g.query),
    }));
    queries += qs.length;
    for (let j = 0; j < ways.length; j++) {
      const w = (j + k) % ways.length;
      const t = performance.now();
      await (ways[w] as (typeof ways)[number])[1](qs);
      spent[w] = (spent[w] as number) + performance.now() - t;
    }
  }
  say(
    `  replay of ${queries} main-instance queries (${groups.length} groups) on one connection, interleaved: ${ways.map(([name], i) => `${name} ${((spent[i] as number) / queries).toFixed(2)} ms`).join(', ')} per query${db.kind === 'pglite' ? ' (on PGlite a group is one round trip a query)' : ''}`,
  );
}

if (!values['skip-pglite']) {
  const db = await openDatabase({ kind: 'pglite' });
  try {
    await run('PGlite (one connection)', [db]);
  } finally {
    await db.close();
  }
}
if (serverUrl) {
  const name = `equisql_bench_generate_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const connections: Database[] = [];
  try {
    for (let i = 0; i < concurrency; i++)
      connections.push(await openDatabase({ kind: 'postgres', url: url.toString() }));
    await run(`server (${concurrency} connections)`, connections);
  } finally {
    for (const c of connections) await c.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
} else say('\nserver: skipped (set DATABASE_URL or --db)');
