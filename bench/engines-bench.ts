/**
 * Generation with both engines against PostgreSQL alone: (group × variant) records per hour
 * of the groups stage when every candidate is checked on PostgreSQL only, and when it is
 * also compiled for SQLite and run on both instances' SQLite files (`--engines
 * postgres,sqlite`), in one sitting, on one build (the SQLite arm's files written with it),
 * the arms alternated so the machine's load falls on both alike. The build is not timed.
 *
 *   npm run bench:engines [-- --dataset social_media --groups 100 --scale small --rounds 2 --db postgres://…]
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { parseGrammar } from '../generator/grammar/pcfg.ts';
import type { ScalePreset } from '../generator/instance/conceptual-instance.ts';
import { openDatabase, type Database } from '../generator/database/database.ts';
import { prepareBuilds } from '../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../generator/generate/query-runner.ts';
import { generateGroups } from '../generator/run/generate-groups.ts';
import { engineLosses } from '../generator/generate/engine-agreement.ts';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string' },
    groups: { type: 'string' },
    scale: { type: 'string' },
    rounds: { type: 'string' },
    db: { type: 'string' },
  },
});
const dataset = values.dataset ?? 'social_media';
const groups = Number(values.groups ?? 100);
const scale = (values.scale ?? 'small') as ScalePreset;
const rounds = Number(values.rounds ?? 2);
const domain = BUILT_IN_DOMAINS[dataset];
if (!domain) throw new Error(`unknown dataset ${dataset}`);
const index = indexDomain(domain);
const grammar = parseGrammar(readFileSync(new URL('../grammars/spider.pcfg', import.meta.url), 'utf8'), 'spider.pcfg');
const say = (s: string) => process.stdout.write(`${s}\n`);

const work = mkdtempSync(join(tmpdir(), 'equisql-bench-engines-'));
const db: Database = await openDatabase(values.db ? { kind: 'postgres', url: values.db } : { kind: 'pglite' });
try {
  const builds = await prepareBuilds({
    dataset,
    domain,
    variants: 'all',
    scale,
    seed: 1,
    db,
    out: join(work, 'build'),
    engines: ['postgres', 'sqlite'],
  });
  say(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; ${db.kind}; ${dataset}, scale ${scale}, ${builds.variants.length} variants, ${groups} groups, seed 1, ${rounds} rounds`,
  );
  const arms = [
    { label: 'postgres', variants: builds.variants.map(({ sqliteFiles: _files, ...v }) => v), settings: {} },
    { label: 'postgres,sqlite', variants: builds.variants, settings: { engines: ['postgres', 'sqlite'] } },
  ];
  const totals = new Map(arms.map((a) => [a.label, { seconds: 0, records: 0 }]));
  for (let round = 1; round <= rounds; round++) {
    for (const arm of round % 2 === 1 ? arms : [...arms].reverse()) {
      const out = join(work, `${arm.label}-${round}`);
      const report = await generateGroups({
        dataset,
        out,
        index,
        instance: builds.instance,
        instanceHashes: {
          main: builds.main.instance_hash,
          ...(builds.edge ? { edge: builds.edge.instance_hash } : {}),
        },
        variants: arm.variants,
        runner: createQueryRunner([db], 30_000),
        grammar,
        seed: 1,
        groups,
        settings: { bench: true, ...arm.settings },
      });
      const records = report.accepted * arm.variants.length;
      const total = totals.get(arm.label) as { seconds: number; records: number };
      total.seconds += report.seconds.total;
      total.records += records;
      const lost = engineLosses(report.rejected, report.candidates);
      const sqlite =
        arm.label === 'postgres'
          ? ''
          : `; lost to engine disagreement ${lost.engine_disagreement.candidates} (${(100 * lost.engine_disagreement.share).toFixed(1)}%), to dialect refusals ${lost.dialect_refused.candidates} (${(100 * lost.dialect_refused.share).toFixed(1)}%)`;
      say(
        `round ${round}, ${arm.label}: ${report.accepted} groups from ${report.candidates} candidates in ${report.seconds.total.toFixed(1)} s = ${Math.round(records / (report.seconds.total / 3600))} records/hour${sqlite}`,
      );
    }
  }
  const rate = (label: string): number => {
    const t = totals.get(label) as { seconds: number; records: number };
    return t.records / (t.seconds / 3600);
  };
  say(
    `\nover ${rounds} rounds: postgres ${Math.round(rate('postgres'))} records/hour, postgres,sqlite ${Math.round(rate('postgres,sqlite'))} records/hour: ${((100 * rate('postgres,sqlite')) / rate('postgres')).toFixed(0)}% of PostgreSQL alone (target ≥ 70%)`,
  );
} finally {
  await db.close();
  rmSync(work, { recursive: true, force: true });
}
