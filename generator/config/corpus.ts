/**
 * A corpus: many databases named at once, each becoming one dataset of a corpus run with its
 * `db_id`. A corpus is named by `corpora.NAME` in datasets.config.ts, by a JSON file holding a
 * list, or by a folder; each entry of a list is
 *
 * - a dataset of the config (`retail`),
 * - a built-in domain (`social_media`),
 * - an E/R model file (`models/library.json`, `shop.er.json`),
 * - a folder, standing for every `.json` model in it (sorted by name),
 * - a database to import (`postgres://…`, a `.sqlite`/`.sqlite3`/`.db` file).
 *
 * Paths are relative to the file that names them (the config, or the JSON list).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { escapeControl, ownValue } from '../common/user-text.ts';
import type { Domain } from '../er-model/er-model.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { BUILT_IN_DOMAINS } from '../domains/index.ts';
import type { EquisqlConfig } from './define-config.ts';
import { resolveDataset, type ResolvedDataset } from './load-config.ts';

/** One entry of a corpus as written, classified. */
export type CorpusEntry =
  | { readonly kind: 'dataset'; readonly name: string }
  | { readonly kind: 'domain'; readonly name: string }
  | { readonly kind: 'model'; readonly path: string }
  /** A database to read a model from: resolved through `importModel` (see below). */
  | { readonly kind: 'import'; readonly source: string };

/** One database of a corpus: its `db_id` and the dataset it is generated as. */
export interface CorpusDatabase {
  readonly db_id: string;
  readonly entry: CorpusEntry;
  readonly dataset: ResolvedDataset;
}

/**
 * THE IMPORT SEAM. An `import` entry (a PostgreSQL URL or a SQLite file) becomes a model by
 * calling the importer of user databases, `importModel(source)`, which is not part of this
 * module. When it lands, pass it here (`resolveCorpus(…, { importModel })`); until then an
 * import entry is refused in one line naming it.
 */
export type ImportModel = (source: string) => Domain | Promise<Domain>;

const IMPORT_FILE = /\.(sqlite3?|db)$/iu;

/** What a written entry names; `base` is the folder its paths are relative to. */
export function classifyEntry(text: string, config: EquisqlConfig, base: string, where: string): CorpusEntry[] {
  if (typeof text !== 'string' || text.trim() === '')
    throw new ConfigError(
      `${where}: an entry must be a non-empty string (a dataset, a built-in domain, a model file, a folder or a database to import)`,
    );
  if (/^postgres(ql)?:\/\//iu.test(text) || IMPORT_FILE.test(text))
    return [{ kind: 'import', source: /^postgres/iu.test(text) ? text : resolve(base, text) }];
  if (Object.hasOwn(config.datasets, text)) return [{ kind: 'dataset', name: text }];
  if (ownValue(BUILT_IN_DOMAINS, text)) return [{ kind: 'domain', name: text }];
  const path = resolve(base, text);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) {
    const models = readdirSync(path)
      .filter((n) => n.endsWith('.json') && statSync(join(path, n)).isFile())
      .sort();
    if (models.length === 0) throw new ConfigError(`${where}: the folder ${text} holds no .json model`);
    return models.map((n) => ({ kind: 'model', path: join(path, n) }));
  }
  if (stat?.isFile() && text.endsWith('.json')) return [{ kind: 'model', path }];
  const shown = escapeControl(text.length > 60 ? `${text.slice(0, 57)}...` : text);
  throw new ConfigError(
    `${where}: "${shown}" is not a dataset of the config, a built-in domain (${Object.keys(BUILT_IN_DOMAINS).join(', ')}), a .json model, a folder of them, or a database to import`,
  );
}

/**
 * The entries `--corpus NAME` names: `corpora.NAME` of the config, else a `.json` file holding
 * a list of entries, else a folder of models.
 */
export function corpusEntries(name: string, config: EquisqlConfig, configPath: string, cwd: string): CorpusEntry[] {
  const corpora = config.corpora ?? {};
  const named = Object.hasOwn(corpora, name) ? corpora[name] : undefined;
  let list: unknown;
  let base: string;
  let where: string;
  if (named !== undefined) {
    list = named;
    base = dirname(configPath);
    where = `${configPath}: corpora.${name}`;
  } else {
    const path = resolve(cwd, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return classifyEntry(path, config, cwd, `--corpus ${name}`);
    if (!stat?.isFile() || !name.endsWith('.json')) {
      throw new ConfigError(
        `--corpus: "${escapeControl(name)}" is neither a corpus of the config (${Object.keys(corpora).join(', ') || 'none'}) nor a .json list or a folder`,
      );
    }
    try {
      list = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new ConfigError(`--corpus ${name}: not JSON: ${(error as Error).message}`);
    }
    base = dirname(path);
    where = `--corpus ${name}`;
  }
  if (!Array.isArray(list) || list.length === 0) throw new ConfigError(`${where}: must be a non-empty list of entries`);
  return list.flatMap((text, k) => classifyEntry(text as string, config, base, `${where}[${k}]`));
}

/**
 * The corpus's databases, in the order written: each entry resolved to a validated dataset
 * with its `db_id` (the dataset's name, or the model's). A `db_id` twice is refused in one
 * line naming both entries: records of two databases would share it.
 *
 * @example
 * await resolveCorpus(corpusEntries('both', config, path, cwd), config, path, cwd);
 * // [{ db_id: 'retail', … }, { db_id: 'social_media', … }]
 */
export async function resolveCorpus(
  entries: readonly CorpusEntry[],
  config: EquisqlConfig,
  configPath: string,
  cwd: string,
  options: { readonly importModel?: ImportModel } = {},
): Promise<CorpusDatabase[]> {
  const out: CorpusDatabase[] = [];
  const seen = new Map<string, CorpusEntry>();
  for (const entry of entries) {
    let dataset: ResolvedDataset;
    if (entry.kind === 'dataset') dataset = resolveDataset(entry.name, config, configPath, cwd);
    else if (entry.kind === 'domain') {
      const domain = BUILT_IN_DOMAINS[entry.name] as Domain;
      dataset = { name: entry.name, domain, definition: { domain: entry.name } };
    } else if (entry.kind === 'model') {
      const domain = parseDomainJson(readFileSync(entry.path, 'utf8'), entry.path);
      dataset = { name: domain.name, domain, definition: { domain } };
    } else {
      // The import seam: see ImportModel.
      if (!options.importModel)
        throw new ConfigError(
          `--corpus: ${entry.source}: importing a database into a model is not available in this build (give its E/R model as a .json file)`,
        );
      const domain = await options.importModel(entry.source);
      dataset = { name: domain.name, domain, definition: { domain } };
    }
    const other = seen.get(dataset.name);
    if (other)
      throw new ConfigError(
        `--corpus: db_id "${escapeControl(dataset.name)}" twice (${describe(other)} and ${describe(entry)}): every database of a corpus needs its own name`,
      );
    seen.set(dataset.name, entry);
    out.push({ db_id: dataset.name, entry, dataset });
  }
  return out;
}

function describe(entry: CorpusEntry): string {
  switch (entry.kind) {
    case 'dataset':
      return `dataset ${entry.name}`;
    case 'domain':
      return `built-in domain ${entry.name}`;
    case 'model':
      return `model ${entry.path}`;
    case 'import':
      return `import ${entry.source}`;
  }
}
