// @tier long
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EquisqlError } from '../../generator/common/errors.ts';
import { createRng, type Rng } from '../../generator/common/rng.ts';
import { loadConfig, resolveDataset } from '../../generator/config/load-config.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { domainToJson, parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { indexDomain, type ErIndex } from '../../generator/er-model/er-index.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { checkCounts, generateInstance } from '../../generator/instance/generate-instance.ts';
import { checkSeed } from '../../generator/assemble/build-dataset.ts';
import { selectVariants } from '../../generator/variants/select-variants.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import type { RelationalSchema } from '../../generator/variants/relational-schema.ts';
import { createShredContext } from '../../generator/shred/shred-rows.ts';
import { shredVariant } from '../../generator/load/load-variant.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { scopeQuery } from '../../generator/query/query-scope.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { mutantText, mutantValue, mutate, type Mutant } from './mutations.ts';

/** How many mutants of each kind; together well over a thousand. */
const CASES = { model: 450, config: 200, query: 450 } as const;
/**
 * The slowest case may take this long (ms); a validator must not hang on hostile input. The
 * slowest valid mutants (which go on through generation and compilation) take up to about
 * 2 s on a loaded two-core machine, so the bound leaves room for that, not for a hang.
 */
const CASE_BOUND_MS = 5000;
const CLI_SAMPLE = { build: 12, compile: 8 } as const;

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const BIN = resolve(REPO_ROOT, 'bin/equisql.js');

type Kind = keyof typeof CASES;

interface Outcome {
  readonly kind: Kind;
  readonly label: string;
  readonly mutant: Mutant;
  /** Where the source came from: a model, dataset or query fixture. */
  readonly source: string;
  readonly ms: number;
  /** `rejected`: the validator refused it; `downstream`: valid, refused later; `valid`: went through. */
  readonly result: 'rejected' | 'downstream' | 'valid';
  readonly message?: string;
}

/** What a case got wrong, if anything. */
interface Failure {
  readonly kind: Kind;
  readonly label: string;
  readonly problem: string;
}

const MODEL_SOURCES: readonly [string, unknown][] = [
  ...Object.values(BUILT_IN_DOMAINS).map((d): [string, unknown] => [d.name, JSON.parse(domainToJson(d))]),
  ['library', JSON.parse(readFileSync(join(FIXTURES, 'er-model/valid/library.json'), 'utf8'))],
];

const CONFIG_SOURCES: readonly [string, unknown][] = [
  [
    'social_media tiny',
    {
      domain: 'social_media',
      description: 'fuzzed',
      scale: 'tiny',
      seed: 7,
      profile: 'edge',
      counts: { Account: 30, Content: 40 },
      variants: 'full_sti,full_cti',
    },
  ],
  ['library object', { domain: MODEL_SOURCES[2]?.[1], scale: 'tiny', seed: 'abc', variants: 'all' }],
  ['retail', { domain: 'retail', scale: 'small', counts: { Product: 50 }, variants: 'random:2' }],
];

const QUERY_SOURCES: readonly [string, string, unknown][] = ['social_media', 'retail'].flatMap((domain) => {
  const dir = join(FIXTURES, 'compiled', domain, 'queries');
  return readdirSync(dir)
    .sort()
    .map((file): [string, string, unknown] => [
      domain,
      `${domain}/${file}`,
      JSON.parse(readFileSync(join(dir, file), 'utf8')),
    ]);
});

/** Message checks every refusal must pass: a one-line message that names where. */
function messageProblem(error: unknown, where: RegExp | undefined): string | undefined {
  if (!(error instanceof EquisqlError))
    return `internal error ${(error as Error)?.name ?? typeof error}: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
  if (/[\n\r\u2028\u2029]/.test(error.message))
    return `message spans lines: ${JSON.stringify(error.message.slice(0, 200))}`;
  if (where !== undefined && !where.test(error.message))
    return `message names no place: ${error.message.slice(0, 200)}`;
  return undefined;
}

/** Small counts for every root, so a valid mutant is generated quickly. */
function smallCounts(domain: Domain): Record<string, number> {
  return Object.fromEntries(
    domain.entities.filter((e) => e.parent === undefined).map((e) => [e.name, Math.min(e.counts?.tiny ?? 20, 40)]),
  );
}

/** Everything `build` does with a model before it writes, and shredding, all in memory. */
function downstreamOfModel(domain: Domain): void {
  const index = indexDomain(domain);
  const schemas = selectVariants(index, 'all', 1).map((v) => buildRelationalSchema(index, v));
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny', counts: smallCounts(domain) });
  const context = createShredContext(index, instance);
  for (const schema of schemas) shredVariant(context, schema);
}

const MODEL_WHERE = /^mutated\.json(:\d+:\d+: invalid JSON: |: (domains\.[A-Za-z_]\w*|domain)([.[]|: ))/;
// A dataset's own fields are named after the config file that holds them.
const CONFIG_WHERE =
  /^((\/[^:]+\.config\.ts: )?datasets\.x[.[: ]|domains\.[A-Za-z_]\w*[.[:]|domain: |[\w.-]+\.json[:]|--variants: |--seed: |counts[.:])/;
const QUERY_WHERE = /^query[.[:]/;

describe('mutation fuzzer over models, dataset configs and conceptual queries', () => {
  const outcomes: Outcome[] = [];
  const failures: Failure[] = [];
  const variantSchemas = new Map<string, { index: ErIndex; schemas: RelationalSchema[] }>();

  /** Runs one case, timing it and sorting its result. */
  function run(
    kind: Kind,
    source: string,
    mutant: Mutant,
    where: RegExp,
    validate: () => void,
    downstream: () => void,
  ): void {
    const started = performance.now();
    let result: Outcome['result'] = 'valid';
    let message: string | undefined;
    try {
      validate();
    } catch (error) {
      result = 'rejected';
      message = (error as Error)?.message;
      const problem = messageProblem(error, where);
      if (problem) failures.push({ kind, label: `${source}: ${mutant.label}`, problem });
    }
    if (result === 'valid') {
      try {
        downstream();
      } catch (error) {
        result = 'downstream';
        message = (error as Error)?.message;
        const problem = messageProblem(error, undefined);
        if (problem) failures.push({ kind, label: `${source}: ${mutant.label} (valid, then)`, problem });
      }
    }
    outcomes.push({ kind, label: mutant.label, mutant, source, ms: performance.now() - started, result, message });
  }

  beforeAll(() => {
    for (const [name, domain] of Object.entries(BUILT_IN_DOMAINS)) {
      const index = indexDomain(domain);
      variantSchemas.set(name, {
        index,
        schemas: selectVariants(index, 'all', 1).map((v) => buildRelationalSchema(index, v)),
      });
    }
  });

  it(`derives ${CASES.model + CASES.config + CASES.query} mutants; each is refused with a one-line message naming where, in time, or goes through`, async () => {
    const rng: Rng = createRng('equisql-fuzz');
    const modelRng = rng.fork('model');
    for (let i = 0; i < CASES.model; i++) {
      const [source, model] = modelRng.pick(MODEL_SOURCES);
      const mutant = mutate(model, modelRng);
      let domain: Domain | undefined;
      run(
        'model',
        source,
        mutant,
        MODEL_WHERE,
        () => {
          domain = parseDomainJson(mutantText(mutant), 'mutated.json');
        },
        () => downstreamOfModel(domain as Domain),
      );
    }

    const { path: configPath } = await loadConfig(undefined, REPO_ROOT);
    const configRng = rng.fork('config');
    for (let i = 0; i < CASES.config; i++) {
      const [source, definition] = configRng.pick(CONFIG_SOURCES);
      const mutant = mutate(definition, configRng);
      let resolved: ReturnType<typeof resolveDataset> | undefined;
      run(
        'config',
        source,
        mutant,
        CONFIG_WHERE,
        () => {
          resolved = resolveDataset(
            'x',
            { datasets: Object.fromEntries([['x', mutantValue(mutant)]]) as never },
            configPath,
            REPO_ROOT,
          );
        },
        () => {
          // What build does with a dataset before it writes anything.
          const { domain, definition: def } = resolved as NonNullable<typeof resolved>;
          const seed = def.seed ?? 1;
          checkSeed(seed);
          const options = {
            seed,
            scale: def.scale ?? 'small',
            profile: def.profile ?? 'default',
            counts: def.counts ?? {},
          };
          checkCounts(domain, options);
          selectVariants(indexDomain(domain), def.variants ?? 'all', seed);
          if (Object.values(options.counts).every((n) => n <= 200))
            generateInstance(domain, {
              ...options,
              scale: 'tiny',
              counts: { ...smallCounts(domain), ...options.counts },
            });
        },
      );
    }

    const queryRng = rng.fork('query');
    for (let i = 0; i < CASES.query; i++) {
      const [domainName, source, query] = queryRng.pick(QUERY_SOURCES);
      const mutant = mutate(query, queryRng);
      const { index, schemas } = variantSchemas.get(domainName) as { index: ErIndex; schemas: RelationalSchema[] };
      const value = mutantValue(mutant);
      run(
        'query',
        source,
        mutant,
        QUERY_WHERE,
        () => scopeQuery(index, value as Query),
        () => {
          for (const schema of schemas) compileQuery(index, schema, value as Query);
        },
      );
    }

    const tally = (kind: Kind, result: Outcome['result']): number =>
      outcomes.filter((o) => o.kind === kind && o.result === result).length;
    const slowest = outcomes.reduce((a, b) => (b.ms > a.ms ? b : a));
    // Printed so a reader sees what the run exercised.
    console.info(
      `fuzz: ${outcomes.length} cases; ` +
        (['model', 'config', 'query'] as const)
          .map(
            (k) =>
              `${k} ${tally(k, 'rejected')} rejected / ${tally(k, 'downstream')} refused downstream / ${tally(k, 'valid')} valid`,
          )
          .join('; ') +
        `; slowest ${slowest.ms.toFixed(0)} ms (${slowest.kind} ${slowest.label})`,
    );
    expect(failures).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(1000);
    // Most mutants must be malformed, or the fuzzer tests nothing.
    for (const kind of ['model', 'config', 'query'] as const)
      expect(tally(kind, 'rejected'), kind).toBeGreaterThan(CASES[kind] / 2);
    expect(slowest.ms, `${slowest.kind} ${slowest.label}`).toBeLessThan(CASE_BOUND_MS);
  }, 600_000);

  describe('through the CLI', () => {
    const work = tempDir('fuzz-cli');
    const good = join(work.dir, 'good');
    let before: string;

    beforeAll(async () => {
      const built = await runCliAsync([
        'build',
        '--dataset',
        'social_media',
        '--scale',
        'tiny',
        '--variants',
        'full_sti,full_cti',
        '--out',
        good,
      ]);
      expect(built.status, built.stderr).toBe(0);
      before = treeHash(good);
    }, 300_000);
    afterAll(() => work.remove());

    it('refuses a seeded sample with exit 2 and one line on stderr, leaving an existing build byte-identical', async () => {
      expect(outcomes.length, 'the in-process run comes first').toBeGreaterThan(0);
      const rng = createRng('equisql-fuzz-cli');
      const sample = (kind: Kind, n: number): Outcome[] => {
        const pool = outcomes.filter((o) => o.kind === kind && o.result === 'rejected');
        return Array.from({ length: n }, () => rng.pick(pool));
      };
      const runs: { args: string[]; label: string }[] = [];
      sample('model', CLI_SAMPLE.build).forEach((o, i) => {
        const file = join(work.dir, `model-${i}.json`);
        writeFileSync(file, mutantText(o.mutant));
        runs.push({
          args: ['build', '--dataset', file, '--scale', 'tiny', '--out', good],
          label: `${o.source}: ${o.label}`,
        });
      });
      sample('query', CLI_SAMPLE.compile).forEach((o, i) => {
        const file = join(work.dir, `query-${i}.json`);
        writeFileSync(file, mutantText(o.mutant));
        runs.push({
          args: ['compile', '--dir', good, '--variant', 'full_sti', '--query', file],
          label: `${o.source}: ${o.label}`,
        });
      });
      const results = await pool(runs, 3, (r) => runCliAsync(r.args));
      const problems = results.flatMap((result, i) => {
        const { label, args } = runs[i] as { label: string; args: string[] };
        const lines = result.stderr.split('\n').filter((l) => l !== '');
        const out: string[] = [];
        if (result.status !== 2) out.push(`exit ${result.status}`);
        if (lines.length !== 1) out.push(`${lines.length} lines on stderr`);
        if (/internal error/.test(result.stderr)) out.push('internal error');
        if (!result.stderr.startsWith(`equisql ${args[0]}: `)) out.push('no command prefix');
        return out.length === 0 ? [] : [`${args[0]} ${label}: ${out.join(', ')}: ${result.stderr.slice(0, 300)}`];
      });
      expect(problems).toEqual([]);
      expect(treeHash(good)).toBe(before);
    }, 600_000);
  });
});

/** One hash over every file's path and bytes under `dir`. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else
        hash
          .update(`${path.slice(dir.length)}\0`)
          .update(readFileSync(path))
          .update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** `equisql …` in a child process without blocking the others; PGlite, whatever DATABASE_URL says. */
function runCliAsync(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const env = { ...process.env };
    delete env['DATABASE_URL'];
    delete env['EQUISQL_DEBUG'];
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('close', (code) => done({ status: code ?? -1, stdout, stderr }));
  });
}

/** Maps `items` through `task` with at most `limit` running at once, results in order. */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
