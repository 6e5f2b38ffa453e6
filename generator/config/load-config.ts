import { existsSync, readFileSync } from 'node:fs';
import { fork } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, oneLine } from '../common/errors.ts';
import { escapeControl, ownValue } from '../common/user-text.ts';
import type { Domain } from '../er-model/er-model.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { validateDomain } from '../er-model/validate-domain.ts';
import { BUILT_IN_DOMAINS } from '../domains/index.ts';
import type { DatasetDefinition, EquisqlConfig } from './define-config.ts';
import { validateDataset } from './validate-config.ts';
import { mergeLlmConfig, validateLlmConfig } from './llm-config.ts';

// The project's own datasets: the source beside generator/, or in the built package the copy
// `npm run build` compiles into dist/ (Node loads no TypeScript from node_modules).
const BUILT_CONFIG = resolve(dirname(fileURLToPath(import.meta.url)), '../datasets.config.js');
const PROJECT_CONFIG = existsSync(BUILT_CONFIG)
  ? BUILT_CONFIG
  : resolve(dirname(fileURLToPath(import.meta.url)), '../../datasets.config.ts');

/** Time a user's config may take to load, and the memory it may use, before it is refused. */
export const CONFIG_LIMITS = { seconds: 30, megabytes: 512 } as const;

/**
 * A user's config is code: it may loop, exhaust memory or call `process.exit`. It is loaded
 * in a child process with a time and memory limit, and its default export comes back as
 * data (structured clone), so none of that can hang this process or end it as a success.
 */
function importInChild(
  path: string,
  limits: { readonly seconds: number; readonly megabytes: number } = CONFIG_LIMITS,
): Promise<unknown> {
  return new Promise((done, fail) => {
    const child = fork(fileURLToPath(new URL('./config-child.mjs', import.meta.url)), [path], {
      execArgv: [`--max-old-space-size=${limits.megabytes}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    let reply: { ok: boolean; value?: unknown; message?: string } | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limits.seconds * 1000);
    child.on('message', (message) => (reply ??= message as unknown as typeof reply));
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(new ConfigError(`${path}: cannot load: ${oneLine(error)}`, { cause: error }));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (reply?.ok) return done(reply.value);
      if (reply) return fail(new ConfigError(`${path}: cannot load: ${reply.message}`));
      if (timedOut)
        return fail(
          new ConfigError(`${path}: cannot load: it did not finish loading within ${limits.seconds} s (a loop?)`),
        );
      if (/heap out of memory|Allocation failed|invalid array length|Reached heap limit/iu.test(stderr)) {
        return fail(
          new ConfigError(`${path}: cannot load: it ran out of memory while loading (limit ${limits.megabytes} MB)`),
        );
      }
      fail(
        new ConfigError(
          `${path}: cannot load: it ended the process while loading (${signal ? `signal ${signal}` : `exit code ${code}`}) instead of exporting a config`,
        ),
      );
    });
  });
}

async function importConfig(path: string, shipped: boolean): Promise<EquisqlConfig> {
  let loaded: unknown;
  if (shipped) {
    try {
      loaded = ((await import(pathToFileURL(path).href)) as { default?: unknown }).default;
    } catch (error) {
      throw new ConfigError(`${path}: cannot load: ${oneLine(error)}`, { cause: error });
    }
  } else {
    loaded = await importInChild(path);
  }
  const datasets = (loaded as EquisqlConfig | undefined)?.datasets;
  if (typeof datasets !== 'object' || datasets === null || Array.isArray(datasets)) {
    throw new ConfigError(
      `${path}: the default export has no "datasets" object (export default defineConfig({ datasets: { … } }))`,
    );
  }
  const { llm } = loaded as EquisqlConfig;
  // Checked on load: a price typo must not surface only after a paid run.
  if (llm !== undefined) validateLlmConfig(llm, `${path}: llm`);
  return loaded as EquisqlConfig;
}

/**
 * Loads the config: `file` if given, else `datasets.config.ts` in `cwd`, else the one that
 * ships with equisql (the reference datasets). A user's config adds to the shipped datasets
 * and wins on a shared name, so `--dataset social_media` works from any directory.
 * (The shipped datasets name built-in domains, so resolving them from the user's folder is
 * the same as from ours.) Its `llm` section merges with the shipped one (see mergeLlmConfig).
 */
export async function loadConfig(
  file: string | undefined,
  cwd: string,
): Promise<{ config: EquisqlConfig; path: string }> {
  const local = resolve(cwd, 'datasets.config.ts');
  const candidate = file ? resolve(cwd, file) : existsSync(local) ? local : PROJECT_CONFIG;
  if (!existsSync(candidate)) throw new ConfigError(`--config: no such file ${candidate}`);
  const shipped = await importConfig(PROJECT_CONFIG, true);
  if (candidate === PROJECT_CONFIG) return { config: shipped, path: candidate };
  const user = await importConfig(candidate, false);
  const llm = mergeLlmConfig(shipped.llm, user.llm);
  const corpora = shipped.corpora || user.corpora ? { corpora: { ...shipped.corpora, ...user.corpora } } : {};
  return {
    config: { ...user, datasets: { ...shipped.datasets, ...user.datasets }, ...corpora, ...(llm ? { llm } : {}) },
    path: candidate,
  };
}

/** A dataset resolved to its validated domain. */
export interface ResolvedDataset {
  readonly name: string;
  readonly domain: Domain;
  readonly definition: DatasetDefinition;
}

/**
 * `--dataset NAME`: a dataset of the config, or a path to a JSON E/R model (its dataset name
 * is the model's name).
 */
export function resolveDataset(name: string, config: EquisqlConfig, configPath: string, cwd: string): ResolvedDataset {
  if (name.endsWith('.json')) {
    const path = resolve(cwd, name);
    if (!existsSync(path)) throw new ConfigError(`--dataset: no such file ${name}`);
    const domain = parseDomainJson(readFileSync(path, 'utf8'), name);
    return { name: domain.name, domain, definition: { domain } };
  }
  const definition = Object.hasOwn(config.datasets, name) ? (config.datasets[name] as unknown) : undefined;
  if (definition === undefined) {
    throw new ConfigError(
      `--dataset: unknown dataset "${escapeControl(name)}" (known: ${Object.keys(config.datasets).join(', ')}; or a path to a .json model)`,
    );
  }
  const checked = validateDataset(definition, `${configPath}: datasets.${name}`);
  return {
    name,
    domain: resolveDomain(checked.domain, `datasets.${name}.domain`, dirname(configPath)),
    definition: checked,
  };
}

function resolveDomain(domain: Domain | string, where: string, base: string): Domain {
  if (typeof domain !== 'string') return validateDomain(domain, where);
  const builtIn = ownValue(BUILT_IN_DOMAINS, domain);
  if (builtIn) return builtIn;
  const path = resolve(base, domain);
  if (!domain.endsWith('.json') || domain.includes('\0') || !existsSync(path)) {
    throw new ConfigError(
      `${where}: ${JSON.stringify(domain.length > 60 ? `${domain.slice(0, 57)}...` : domain)} is neither a built-in domain (${Object.keys(BUILT_IN_DOMAINS).join(', ')}) nor a JSON model file`,
    );
  }
  return parseDomainJson(readFileSync(path, 'utf8'), domain);
}
