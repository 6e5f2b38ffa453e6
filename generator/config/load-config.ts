import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, oneLine } from '../common/errors.ts';
import type { Domain } from '../er-model/er-model.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { validateDomain } from '../er-model/validate-domain.ts';
import { BUILT_IN_DOMAINS } from '../domains/index.ts';
import type { DatasetDefinition, EquisqlConfig } from './define-config.ts';
import { validateDataset } from './validate-config.ts';

const PROJECT_CONFIG = resolve(dirname(fileURLToPath(import.meta.url)), '../../datasets.config.ts');

/**
 * Loads the config: `file` if given, else `datasets.config.ts` in `cwd`, else the one that
 * ships with equisql (the two reference domains).
 */
export async function loadConfig(file: string | undefined, cwd: string): Promise<{ config: EquisqlConfig; path: string }> {
  const candidate = file ? resolve(cwd, file) : existsSync(resolve(cwd, 'datasets.config.ts')) ? resolve(cwd, 'datasets.config.ts') : PROJECT_CONFIG;
  if (!existsSync(candidate)) throw new ConfigError(`--config: no such file ${candidate}`);
  let loaded: unknown;
  try {
    loaded = ((await import(pathToFileURL(candidate).href)) as { default?: unknown }).default;
  } catch (error) {
    throw new ConfigError(`${candidate}: cannot load: ${oneLine(error)}`, { cause: error });
  }
  const datasets = (loaded as EquisqlConfig | undefined)?.datasets;
  if (typeof datasets !== 'object' || datasets === null) throw new ConfigError(`${candidate}: the default export has no "datasets" object`);
  return { config: loaded as EquisqlConfig, path: candidate };
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
    throw new ConfigError(`--dataset: unknown dataset "${name}" (known: ${Object.keys(config.datasets).join(', ')}; or a path to a .json model)`);
  }
  const checked = validateDataset(definition, `datasets.${name}`);
  return { name, domain: resolveDomain(checked.domain, `datasets.${name}.domain`, dirname(configPath)), definition: checked };
}

function resolveDomain(domain: Domain | string, where: string, base: string): Domain {
  if (typeof domain !== 'string') return validateDomain(domain, where);
  // Own keys only: "constructor" or "__proto__" must not find Object's.
  const builtIn = Object.hasOwn(BUILT_IN_DOMAINS, domain) ? BUILT_IN_DOMAINS[domain] : undefined;
  if (builtIn) return builtIn;
  const path = resolve(base, domain);
  if (!domain.endsWith('.json') || domain.includes('\0') || !existsSync(path)) {
    throw new ConfigError(`${where}: ${JSON.stringify(domain.length > 60 ? `${domain.slice(0, 57)}...` : domain)} is neither a built-in domain (${Object.keys(BUILT_IN_DOMAINS).join(', ')}) nor a JSON model file`);
  }
  return parseDomainJson(readFileSync(path, 'utf8'), domain);
}
