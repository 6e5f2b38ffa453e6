import { INSTANCE_FROM_FLAGS, instanceFromFlags, safeSource } from './instance-from-flags.ts';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, type CliIo, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { EXPORT_FLAGS } from './export-flags.ts';
import { ConfigError } from '../common/errors.ts';
import { parseEngines } from './engines-flag.ts';
import { DEFAULTS } from '../config/define-config.ts';
import { loadConfig, resolveDataset, type ResolvedDataset } from '../config/load-config.ts';
import { corpusEntries, resolveCorpus, type CorpusDatabase } from '../config/corpus.ts';
import type { EquisqlConfig } from '../config/define-config.ts';
import { readManifestObject } from '../common/file-seal.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { stableStringify } from '../common/hash.ts';
import { SCALE_PRESETS, type ScalePreset } from '../instance/conceptual-instance.ts';
import { openDatabase, resolveTarget, type Database } from '../database/database.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { parseGrammar } from '../grammar/pcfg.ts';
import { mixGrammars } from '../grammar/pcfg-estimator.ts';
import { lockDir } from '../assemble/dir-lock.ts';
import { DIFFICULTIES, type Difficulty } from '../records/group-record.ts';
import { readSuiteFile } from '../generate/suite-file.ts';
import { exportSettings } from '../export/export-settings.ts';
import { checkDatabaseCount } from '../export/split-assign.ts';
import type { ShardSpec } from '../run/shard-run.ts';
import { shardFromEnvironment } from '../run/shard-engine.ts';
import { finishCorpusShard, ownedDatabases, startCorpusShard, type CorpusShardState } from '../run/corpus-shards.ts';
import { checkResume, writeRunSettings } from '../run/run-settings.ts';
import { seedFromText } from '../assemble/build-manifest.ts';
import { displayFor } from './progress-bar.ts';
import type { QueryRunner } from '../generate/query-runner.ts';
import { selectVariants } from '../variants/select-variants.ts';
import { removeStaleTemps } from '../common/file-seal.ts';

/** `easy=0.25,medium=0.4,…` → shares; a ConfigError naming the flag otherwise. */
function parseMix(text: string): Record<Difficulty, number> {
  const mix: Partial<Record<Difficulty, number>> = {};
  for (const part of text.split(',')) {
    const m = /^(easy|medium|hard|extra)=(\d+(?:\.\d+)?)$/u.exec(part.trim());
    if (!m) throw new ConfigError(`generate: --difficulty expects easy=S,medium=S,hard=S,extra=S, got "${part}"`);
    if (mix[m[1] as Difficulty] !== undefined)
      throw new ConfigError(`generate: --difficulty: ${m[1]} is given twice in "${text.slice(0, 80)}"`);
    mix[m[1] as Difficulty] = Number(m[2]);
  }
  return checkMix(mix, '--difficulty');
}

function checkMix(mix: Readonly<Partial<Record<Difficulty, number>>>, where: string): Record<Difficulty, number> {
  const out = Object.fromEntries(DIFFICULTIES.map((d) => [d, mix[d] ?? 0])) as Record<Difficulty, number>;
  const total = DIFFICULTIES.reduce((a, d) => a + out[d], 0);
  if (DIFFICULTIES.some((d) => !(out[d] >= 0)) || !(total > 0))
    throw new ConfigError(`${where}: shares must be non-negative numbers with a positive sum`);
  return out;
}

/** `auto` or `auto/N`: the shard an array job's variables name (N: the count where the engine gives none). */
function autoShard(text: string, env: Readonly<Record<string, string | undefined>>): ShardSpec {
  const m = /^auto(?:\/(\d+))?$/u.exec(text);
  if (!m || (m[1] !== undefined && !(Number(m[1]) >= 1)))
    throw new ConfigError(`generate: --shard expects i/N, auto or auto/N (N ≥ 1), got "${text}"`);
  const { index, count } = shardFromEnvironment(env, m[1] !== undefined ? Number(m[1]) : undefined);
  return { index, count };
}

const GRAMMARS = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'grammars');

const FLAGS = {
  dataset: {
    type: 'string',
    value: 'NAME',
    help: 'a dataset of datasets.config.ts, or an E/R model as a .json file (this or --corpus)',
  },
  corpus: {
    type: 'string',
    value: 'NAME|FILE.json|FOLDER',
    help: 'generate every database of a corpus (corpora.NAME of the config, a .json list of entries, or a folder of models), each into DIR/databases/<db_id>/ with these flags, then export them together into DIR (docs/configuration.md#corpora)',
  },
  variants: {
    type: 'string',
    value: 'all|a,b,…|random:K',
    help: "the schema variants (default: the dataset's, else all presets)",
  },
  scale: { type: 'string', value: 'S', help: "instance size (default: the dataset's, else small)" },
  seed: { type: 'string', value: 'N', help: "the one seed all randomness flows from (default: the dataset's, else 1)" },
  grammar: {
    type: 'string',
    value: 'G',
    help: 'the skeleton grammar: a .pcfg file or a name under grammars/ (default spider)',
  },
  groups: { type: 'string', value: 'N', help: 'verified equivalence groups to generate (default 100)' },
  tail: { type: 'string', value: 'F', help: "share of long-tail skeletons, 0 to 1 (default: the dataset's, else 0.1)" },
  difficulty: {
    type: 'string',
    value: 'easy=S,medium=S,hard=S,extra=S',
    help: "target shares of Spider difficulties (default: the dataset's difficulty, else none)",
  },
  'from-suite': {
    type: 'string',
    value: 'FILE.jsonl',
    help: 'one conceptual query a line ({"id", "query", "question"?}) instead of sampled skeletons, each checked the same way; give it its own --out',
  },
  mix: {
    type: 'string',
    value: 'G:W',
    multiple: true,
    help: 'mix another grammar in by weight (default:0.2); the main grammar keeps the rest',
  },
  db: {
    type: 'string',
    value: 'URL',
    help: 'postgres://… or pglite:DIR (default DATABASE_URL, else PGlite stored in DIR/pglite)',
  },
  concurrency: {
    type: 'string',
    value: 'K',
    help: 'server connections candidates are checked on (default 4; PGlite: always one)',
  },
  'timeout-ms': { type: 'string', value: 'T', help: 'milliseconds a candidate query may run (default 10000)' },
  engines: {
    type: 'string',
    value: 'postgres[,sqlite]',
    help: 'engines every group is checked on: with sqlite, both instances are also built as DIR/sqlite/<variant>.sqlite and DIR/edge/sqlite/<variant>.sqlite, each group is compiled for SQLite too and kept only when SQLite answers as PostgreSQL does (default postgres)',
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: 'the configuration file (default datasets.config.ts in the working directory)',
  },
  out: { type: 'string', value: 'DIR', required: true, help: 'where the run goes' },
  ...EXPORT_FLAGS,
  ...INSTANCE_FROM_FLAGS,
  resume: {
    type: 'boolean',
    help: 'continue a run cut short where its files end, to the bytes of an uninterrupted run (refused for a DIR generated with other settings)',
  },
  shard: {
    type: 'string',
    value: 'i/N|auto|auto/N',
    help: "run shard i of N (candidates c with c mod N = i−1) into its own DIR, stopping before the questions; with --corpus, the databases k with k mod N = i−1, whole, without the export; equisql merge joins the shards. auto: i (and N) from an array job's variables (docs/scale-out.md)",
  },
  'shard-margin': {
    type: 'string',
    value: 'M',
    help: 'extra share of groups a shard collects so the merge finds every candidate it needs (default 0.25; with --shard)',
  },
} as const satisfies FlagTable;

const DETAILS = `Builds the dataset into DIR (main instance) and DIR/edge (edge-case instance), or reuses
builds there made with the same settings, then generates N verified equivalence groups:
  DIR/groups/<dataset>.jsonl     one group a line (format: docs/records.md)
  DIR/questions/<dataset>.jsonl  questions for the groups, as equisql questions writes them
  DIR/rejections.jsonl           one rejected candidate a line, with its reason
  DIR/manifest.json              settings, counts accepted and rejected by reason, timings
  DIR/sqlite/, DIR/edge/sqlite/  with --engines postgres,sqlite: one SQLite file a variant
then exports them (as equisql export, whose flags it takes):
  DIR/data/, DIR/finetune/, DIR/README.md (dataset card)
A DIR that holds a run (whole or cut short) is refused unless --resume is given.
With --corpus, each database is such a run in DIR/databases/<db_id>/ (its export left to the
corpus), and DIR holds the corpus's export: DIR/data/, DIR/finetune/, DIR/README.md,
DIR/manifest.json (its "corpus" section lists the databases), and each database's schemas and
dumps under DIR/datasets/<db_id>/. Every record carries its database's db_id.`;

export const command: Command = {
  name: 'generate',
  summary: 'generate verified equivalence groups (conceptual query + SQL on every variant)',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('generate', args, FLAGS).values;
    const cwd = process.cwd();
    const out = resolve(cwd, required('generate', 'out', flags.out));
    const { config, path } = await loadConfig(flags.config, cwd);
    if (flags.corpus !== undefined) {
      if (flags.dataset !== undefined) throw new ConfigError('generate: give --dataset or --corpus, not both');
      return generateCorpus(flags, config, path, cwd, out, io);
    }
    if (flags.dataset === undefined || flags.dataset === '')
      throw new ConfigError('generate: give --dataset NAME (or --corpus NAME)');
    const dataset = resolveDataset(flags.dataset, config, path, cwd);
    const plan = await planRun(flags, dataset, path, cwd, out, io);
    if (plan.exporting.split === 'database' && !plan.shard)
      checkDatabaseCount('generate', [dataset.name], plan.exporting.ratios);
    return runPlan(plan, io, { exportAfter: true });
  },
};

type GenerateFlags = ReturnType<typeof parseTable<typeof FLAGS>>['values'];

/** Everything a run needs, checked from the flags and the dataset before anything is opened or built. */
interface RunPlan {
  readonly flags: GenerateFlags;
  readonly dataset: ResolvedDataset;
  readonly out: string;
  readonly scale: ScalePreset;
  readonly seed: string | number;
  readonly suite: ReturnType<typeof readSuiteFile> | undefined;
  readonly groups: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly tail: number;
  readonly difficultyMix: Record<Difficulty, number> | undefined;
  readonly grammar: ReturnType<typeof parseGrammar>;
  readonly exporting: ReturnType<typeof exportSettings>;
  readonly variants: string;
  readonly target: ReturnType<typeof resolveTarget>;
  readonly shard: ShardSpec | undefined;
  readonly margin: number;
  readonly engines: ReturnType<typeof parseEngines>;
  readonly settings: Readonly<Record<string, unknown>> & { readonly seed: string | number };
}

/**
 * Reads the flags for one dataset's run into DIR `out`: every refusal a flag or the dataset
 * can earn comes here, before a file is written or a database opened.
 */
async function planRun(
  flags: GenerateFlags,
  dataset: ResolvedDataset,
  path: string,
  cwd: string,
  out: string,
  io: CliIo,
): Promise<RunPlan> {
  const def = dataset.definition;
  const scale = (flags.scale ?? def.scale ?? DEFAULTS.scale) as ScalePreset;
  if (!SCALE_PRESETS.includes(scale))
    throw new ConfigError(`generate: --scale must be one of ${SCALE_PRESETS.join(', ')}, got "${scale}"`);
  // As `build` reads it: a whole number past 2^53-1 stays the exact text the user typed.
  const seed = flags.seed !== undefined ? seedFromText(flags.seed) : seedFromText(String(def.seed ?? DEFAULTS.seed));
  if (
    flags.seed === undefined &&
    typeof def.seed === 'number' &&
    Number.isInteger(def.seed) &&
    !Number.isSafeInteger(def.seed)
  ) {
    throw new ConfigError(
      `${path}: datasets.${dataset.name}.seed: ${def.seed} is above 2^53-1 and was already rounded when the config was read; write the seed as a string`,
    );
  }
  const whole = (flag: string, value: string | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new ConfigError(`generate: --${flag} must be a whole positive number, got "${value}"`);
    return Number(value);
  };
  const suite = flags['from-suite'] !== undefined ? readSuiteFile(resolve(cwd, flags['from-suite'])) : undefined;
  const groups = suite ? suite.length : whole('groups', flags.groups, 100);
  const concurrency = whole('concurrency', flags.concurrency, 4);
  const timeoutMs = whole('timeout-ms', flags['timeout-ms'], 10_000);
  const tail = flags.tail === undefined ? (def.tail ?? 0.1) : Number(flags.tail);
  const difficultyMix =
    flags.difficulty !== undefined
      ? parseMix(flags.difficulty)
      : def.difficulty
        ? checkMix(def.difficulty, `datasets.${dataset.name}.difficulty`)
        : undefined;
  if (!(tail >= 0 && tail <= 1))
    throw new ConfigError(`generate: --tail must be a share in [0, 1], got "${flags.tail}"`);
  const grammarName = flags.grammar ?? 'spider';
  const grammarPath = existsSync(resolve(cwd, grammarName))
    ? resolve(cwd, grammarName)
    : join(GRAMMARS, `${grammarName}.pcfg`);
  if (!existsSync(grammarPath))
    throw new ConfigError(`generate: --grammar: no file ${grammarName} and no grammars/${grammarName}.pcfg`);
  const base = parseGrammar(readFileSync(grammarPath, 'utf8'), grammarPath);
  // --mix G:W: other grammars mixed in by weight; the main grammar keeps 1 − ΣW.
  const mixes = (flags.mix ?? []).map((spec) => {
    const m = /^(.+):(\d*\.?\d+)$/u.exec(spec);
    const weight = m ? Number(m[2]) : NaN;
    if (!m || !(weight > 0 && weight < 1))
      throw new ConfigError(`generate: --mix expects GRAMMAR:WEIGHT with 0 < WEIGHT < 1, got "${spec}"`);
    const name = m[1] as string;
    const path = existsSync(resolve(cwd, name)) ? resolve(cwd, name) : join(GRAMMARS, `${name}.pcfg`);
    if (!existsSync(path)) throw new ConfigError(`generate: --mix: no file ${name} and no grammars/${name}.pcfg`);
    return { grammar: parseGrammar(readFileSync(path, 'utf8'), path), weight, name };
  });
  const mixTotal = mixes.reduce((a, m) => a + m.weight, 0);
  if (mixTotal >= 1) throw new ConfigError(`generate: --mix weights sum to ${mixTotal}, leaving nothing for --grammar`);
  const grammar =
    mixes.length === 0
      ? base
      : mixGrammars([
          { grammar: base, weight: 1 - mixTotal },
          ...mixes.map((m) => ({ grammar: m.grammar, weight: m.weight })),
        ]);
  const exporting = exportSettings('generate', flags);
  const variants = flags.variants ?? def.variants ?? DEFAULTS.variants;
  // Names are checked before anything is loaded, built or opened: a typo costs no build.
  selectVariants(indexDomain(dataset.domain), variants, seed);
  const target = resolveTarget(flags.db ?? io.env['DATABASE_URL'], join(out, 'pglite'));
  const shard =
    flags.shard === undefined
      ? undefined
      : /^auto(\/|$)/u.test(flags.shard.trim())
        ? autoShard(flags.shard.trim(), io.env)
        : (await import('../run/shard-run.ts')).parseShard(flags.shard);
  const margin = flags['shard-margin'] === undefined ? 0.25 : Number(flags['shard-margin']);
  if (!(margin >= 0 && margin <= 100))
    throw new ConfigError(`generate: --shard-margin must be a number from 0 to 100, got "${flags['shard-margin']}"`);
  if (flags['shard-margin'] !== undefined && !shard)
    throw new ConfigError('generate: --shard-margin goes with --shard i/N');
  const engines = parseEngines('generate', flags.engines);
  const withSqlite = engines.includes('sqlite');
  if (flags.sample !== undefined && flags['instance-from'] === undefined)
    throw new ConfigError('generate: --sample goes with --instance-from');
  const instanceFrom =
    flags['instance-from'] === undefined
      ? {}
      : {
          instance_from: safeSource(flags['instance-from']),
          ...(flags.sample !== undefined ? { sample: flags.sample } : {}),
        };
  // Engines are recorded only with SQLite, so a run on PostgreSQL alone writes the bytes it always did.
  const settings = {
    dataset: dataset.name,
    variants,
    scale,
    seed,
    grammar: grammarName,
    mix: flags.mix ?? [],
    groups,
    tail,
    from_suite: flags['from-suite'] ?? null,
    difficulty: difficultyMix ?? null,
    timeout_ms: timeoutMs,
    database: target.kind,
    concurrency: target.kind === 'postgres' ? concurrency : 1,
    ...(withSqlite ? { engines } : {}),
    ...instanceFrom,
  };
  return {
    flags,
    dataset,
    out,
    scale,
    seed,
    suite,
    groups,
    concurrency,
    timeoutMs,
    tail,
    difficultyMix,
    grammar,
    exporting,
    variants,
    target,
    shard,
    margin,
    engines,
    settings,
  };
}

/** Runs a planned dataset: build, groups, questions, and (with `exportAfter`) its export. */
async function runPlan(plan: RunPlan, io: CliIo, options: { readonly exportAfter: boolean }): Promise<number> {
  const {
    flags,
    dataset,
    out,
    scale,
    seed,
    suite,
    groups,
    concurrency,
    timeoutMs,
    tail,
    difficultyMix,
    grammar,
    exporting,
    variants,
    target,
    shard,
    margin,
    engines,
    settings,
  } = plan;
  const def = dataset.definition;
  const shardText = shard ? `${shard.index}/${shard.count}` : undefined;
  const withSqlite = engines.includes('sqlite');
  // A build or another generate writing `out` would swap the database and files under this
  // one: the lock is taken before anything there is read, opened or created (DIR/pglite
  // above all: two processes opening one PGlite directory corrupt it), and held to the end.
  // The pipeline's modules load once the flags hold: a refusal above pays for none of them.
  const [
    { prepareBuilds },
    { createQueryRunner },
    { checkGroupsFiles, generateGroups },
    { readGroupsState, rejectionsPath },
    { writeQuestionsAfterGroups },
    { exportDataset },
    { checkShardFiles, generateShard },
  ] = await Promise.all([
    import('../generate/prepare-builds.ts'),
    import('../generate/query-runner.ts'),
    import('../run/generate-groups.ts'),
    import('../records/groups-file.ts'),
    import('../questions/questions-stage.ts'),
    import('../export/export-dataset.ts'),
    import('../run/shard-run.ts'),
  ]);
  const release = lockDir(out, 'generate');
  const connections: Database[] = [];
  let runner: QueryRunner | undefined;
  const shown = displayFor(io);
  try {
    checkResume(out, dataset.name, settings, flags.resume === true, shardText);
    // The files a resume continues are checked before anything is opened or built.
    if (shard) checkShardFiles(out, dataset.name, shard);
    else checkGroupsFiles(out, dataset.name);
    // Temporary files a killed run of ours left beside the files it was writing.
    removeStaleTemps(out, ['', 'groups', 'questions', 'shard', 'data', 'finetune']);
    const given = await instanceFromFlags('generate', flags, indexDomain(dataset.domain), seed);
    connections.push(await openDatabase(target));
    const builds = await prepareBuilds({
      dataset: dataset.name,
      domain: dataset.domain,
      variants,
      scale,
      seed,
      counts: def.counts ?? {},
      db: connections[0] as Database,
      out,
      progress: shown.message,
      lockHeld: true,
      engines,
      ...(given ? { instance: given } : {}),
    });
    if (target.kind === 'postgres')
      while (connections.length < concurrency) connections.push(await openDatabase(target));
    // A lost server connection is reopened (a few attempts) and the query run again; if the
    // server stays away, the run stops with nothing recorded for the candidate at hand.
    runner = createQueryRunner(
      connections,
      timeoutMs,
      target.kind === 'postgres' ? { reopen: () => openDatabase(target) } : {},
    );
    writeRunSettings(out, settings, shardText);
    const common = {
      dataset: dataset.name,
      out,
      index: indexDomain(dataset.domain),
      instance: builds.instance,
      instanceHashes: { main: builds.main.instance_hash, ...(builds.edge ? { edge: builds.edge.instance_hash } : {}) },
      variants: builds.variants,
      runner,
      grammar,
      seed,
      groups,
      tail,
      ...(difficultyMix ? { difficultyMix } : {}),
      ...(suite ? { suite } : {}),
      settings,
      progress: shown.message,
      tick: shown.tick,
    };
    if (shard) {
      // A shard stops here: the groups, questions and export come from `equisql merge`.
      const done = await generateShard({ ...common, shard, margin });
      shown.message(
        `shard ${shardText}: ${done.candidates} candidates decided, ${done.verified} groups of its own; merge the ${shard.count} shard directories with equisql merge`,
      );
      return EXIT.ok;
    }
    const report = await generateGroups(common);
    if (report.accepted === 0) {
      // No group: there is nothing for the questions or the export to read. Say why the
      // candidates were refused (a suite's query turned away by the difficulty quota says so).
      const reasons = Object.entries(report.rejected)
        .filter(([, n]) => n > 0)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ');
      const first = readGroupsState(out, dataset.name, false).rejections[0];
      shown.message(
        `generate: no group from ${report.candidates} candidates (rejected: ${reasons || 'none'})${first ? `; the first: ${first.reason}: ${first.detail}` : ''}; see ${rejectionsPath(out)}`,
      );
      return EXIT.checkFailed;
    }
    // The questions stage, on the groups just written (DIR/questions/<dataset>.jsonl).
    await writeQuestionsAfterGroups(out, shown.message, shown.tick);
    const rejected = Object.values(report.rejected).reduce((a, b) => a + b, 0);
    shown.message(
      `${report.accepted} groups from ${report.candidates} candidates (${rejected} rejected) in ${report.seconds.total.toFixed(1)} s, ` +
        `${((100 * report.seconds.database) / Math.max(report.seconds.total, 1e-9)).toFixed(0)}% in the database; ` +
        `SQL differs between ≥3 variants in ${(100 * report.differs3).toFixed(0)}% of groups`,
    );
    if (withSqlite) {
      const { engineLosses } = await import('../generate/engine-agreement.ts');
      const lost = engineLosses(report.rejected, report.candidates);
      shown.message(
        `SQLite: ${(100 * lost.engine_disagreement.share).toFixed(1)}% of candidates lost to engine disagreement, ${(100 * lost.dialect_refused.share).toFixed(1)}% to dialect refusals (manifest.json: sqlite)`,
      );
    }
    // Export stage: the groups (and questions) just written become data/, finetune/, the card.
    if (report.accepted > 0 && options.exportAfter)
      await exportDataset({
        dir: out,
        ...exporting,
        progress: shown.message,
        tick: shown.tick,
        ...(def.card ? { card: def.card } : {}),
      });
    return report.accepted >= groups ? EXIT.ok : EXIT.checkFailed;
  } finally {
    shown.end();
    release();
    // The runner's connections are the ones open now (a lost one was closed when replaced).
    for (const c of runner?.connections() ?? connections) await c.close().catch(() => {});
  }
}

/** Flags of a corpus shard that do not decide its data (where it runs, on which server); the export's are merge's. */
const NOT_RUN_FLAGS = new Set(['corpus', 'out', 'resume', 'shard', 'db', 'config']);

/** A shard as --shard gives it: i/N, or auto (auto/N) from an array job's variables. */
async function shardOf(text: string, env: Readonly<Record<string, string | undefined>>): Promise<ShardSpec> {
  return /^auto(\/|$)/u.test(text.trim())
    ? autoShard(text.trim(), env)
    : (await import('../run/shard-run.ts')).parseShard(text);
}

/**
 * `generate --corpus … --shard i/N`: the shard's databases, each run as the unsharded corpus
 * runs it, into DIR/databases/<db_id>/; no export (`merge` makes it over every shard).
 */
async function generateCorpusShard(
  s: {
    readonly corpus: CorpusShardState['corpus'];
    readonly settings: CorpusShardState['settings'];
    readonly run: CorpusShardState['run'];
    readonly shard: ShardSpec;
    readonly owned: readonly CorpusDatabase[];
    readonly plans: readonly RunPlan[];
    readonly out: string;
    readonly resume: boolean;
  },
  io: CliIo,
): Promise<number> {
  const { corpus, shard, out } = s;
  const state: CorpusShardState = {
    stage: 'corpus-shard',
    corpus,
    settings: s.settings,
    run: s.run,
    shard: { index: shard.index, count: shard.count },
    databases: s.owned.map((db) => db.db_id),
  };
  const release = lockDir(out, 'generate');
  try {
    startCorpusShard(out, state, s.resume);
    let short = false;
    for (const [k, plan] of s.plans.entries()) {
      const db = s.owned[k] as CorpusDatabase;
      io.err(
        `corpus ${corpus.name}, shard ${shard.index}/${shard.count}: database ${k + 1}/${s.plans.length}: ${db.db_id}`,
      );
      const status = await runPlan(plan, io, { exportAfter: false });
      if (status === EXIT.ok) continue;
      if (!existsSync(join(plan.out, 'questions', `${plan.dataset.name}.jsonl`))) {
        io.err(
          `generate: --corpus ${corpus.name}: database ${db.db_id} gave no group (see ${join(plan.out, 'rejections.jsonl')}); the shard is not complete, and the same flags give the same result: run the corpus without that database`,
        );
        return EXIT.checkFailed;
      }
      short = true;
    }
    finishCorpusShard(out, state);
    io.err(
      `corpus ${corpus.name}, shard ${shard.index}/${shard.count}: ${s.plans.length} database${s.plans.length === 1 ? '' : 's'} done; merge the ${shard.count} shard directories with equisql merge`,
    );
    return short ? EXIT.checkFailed : EXIT.ok;
  } finally {
    release();
  }
}

/** What a database's directory is called: its db_id, which must be a plain file name. */
const DB_DIR_NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,127}$/u;

/**
 * `generate --corpus`: every database of the corpus is one dataset's run (the same code path
 * as `--dataset`, with the same flags) into DIR/databases/<db_id>/, then one export of all of
 * them into DIR. The corpus, its imports and every database's flags are resolved and checked
 * before the first build, so a bad entry costs nothing.
 */
async function generateCorpus(
  flags: GenerateFlags,
  config: EquisqlConfig,
  configPath: string,
  cwd: string,
  out: string,
  io: CliIo,
): Promise<number> {
  for (const flag of ['from-suite', 'shard-margin', 'instance-from', 'sample'] as const) {
    if (flags[flag] !== undefined)
      throw new ConfigError(`generate: --${flag} belongs to one dataset's run; it does not go with --corpus`);
  }
  const given = flags.corpus as string;
  // The corpus's name, as the card and manifest give it: a config's name, or the list's or
  // folder's base name (not its path, so the same corpus gives the same bytes anywhere).
  const name = Object.hasOwn(config.corpora ?? {}, given) ? given : basename(given).replace(/\.json$/u, '');
  const { importModel } = await import('../import/import-model.ts');
  const databases = await resolveCorpus(corpusEntries(given, config, configPath, cwd), config, configPath, cwd, {
    importModel,
  });
  for (const db of databases) {
    if (!DB_DIR_NAME.test(db.db_id) || db.db_id.includes('..'))
      throw new ConfigError(
        `generate: --corpus ${name}: db_id ${JSON.stringify(db.db_id.slice(0, 80))} is not a plain name (letters, digits, _ . -) to name its directory`,
      );
  }
  // A shard of a corpus runs whole databases, each as the unsharded corpus runs it.
  const shard = flags.shard === undefined ? undefined : await shardOf(flags.shard, io.env);
  const owned = shard ? ownedDatabases(databases, shard) : databases;
  if (owned.length === 0)
    throw new ConfigError(
      `generate: --corpus ${name} has ${databases.length} databases: shard ${shard?.index}/${shard?.count} would run none (use at most ${databases.length} shards)`,
    );
  const plans: RunPlan[] = [];
  for (const db of owned)
    plans.push(
      await planRun({ ...flags, shard: undefined }, db.dataset, configPath, cwd, join(out, 'databases', db.db_id), io),
    );
  const exporting = exportSettings('generate', flags);
  if (exporting.split === 'database')
    checkDatabaseCount(
      'generate',
      databases.map((db) => db.db_id),
      exporting.ratios,
    );
  const seed = flags.seed !== undefined ? seedFromText(flags.seed) : seedFromText(String(DEFAULTS.seed));
  const corpus = {
    name,
    databases: databases.map((db) => ({ db_id: db.db_id, source: db.entry.kind, dir: `databases/${db.db_id}` })),
  };
  const settings = {
    corpus: name,
    seed,
    groups: plans[0]?.groups,
    databases: databases.map((db) => db.db_id),
  };
  if (shard) {
    // What decides the databases' data beyond the corpus's settings: every shard must agree.
    const run = Object.fromEntries(
      Object.entries(flags).filter(
        ([k, v]) => v !== undefined && !NOT_RUN_FLAGS.has(k) && !Object.hasOwn(EXPORT_FLAGS, k),
      ),
    );
    return generateCorpusShard({ corpus, settings, run, shard, owned, plans, out, resume: flags.resume === true }, io);
  }
  const { exportDataset } = await import('../export/export-dataset.ts');
  const release = lockDir(out, 'generate');
  try {
    const manifestPath = join(out, 'manifest.json');
    const before = readManifestObject(out);
    if (before !== undefined) {
      if (flags.resume !== true)
        throw new ConfigError(`generate: ${out} already holds a run; give --resume to continue it, or another --out`);
      if (stableStringify(before['corpus']) !== stableStringify(corpus))
        throw new ConfigError(
          `generate: ${manifestPath}: another corpus (or other databases) was generated here; give another --out`,
        );
    }
    // The export merges its section into this manifest; a resumed run keeps what is there.
    writeFileAtomic(
      manifestPath,
      `${JSON.stringify(JSON.parse(stableStringify({ ...(before ?? {}), corpus, settings })), null, 2)}\n`,
    );
    let short = false;
    for (const [k, plan] of plans.entries()) {
      const db = databases[k] as CorpusDatabase;
      io.err(`corpus ${name}: database ${k + 1}/${plans.length}: ${db.db_id}`);
      const status = await runPlan(plan, io, { exportAfter: false });
      if (status === EXIT.ok) continue;
      if (!existsSync(join(plan.out, 'questions', `${plan.dataset.name}.jsonl`))) {
        io.err(
          `generate: --corpus ${name}: database ${db.db_id} gave no group (see ${join(plan.out, 'rejections.jsonl')}); nothing was exported`,
        );
        return EXIT.checkFailed;
      }
      short = true;
    }
    const shown = displayFor(io);
    try {
      await exportDataset({ dir: out, ...exporting, progress: shown.message, tick: shown.tick });
    } finally {
      shown.end();
    }
    return short ? EXIT.checkFailed : EXIT.ok;
  } finally {
    release();
  }
}
