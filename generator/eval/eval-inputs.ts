/**
 * What an evaluation reads from a generated and exported directory: the rows of one split
 * (`data/<split>-*.jsonl`, in file order), each variant's DDL (`schemas/<variant>.sql`, as
 * the paper's prompt shows a dump's CREATE TABLE statements), the variant schemas of the
 * main instance (`build.json`) and of the edge-case instance (`edge/build.json`), and each
 * group's gold answer on the edge instance (`groups/<dataset>.jsonl`, `verified_on`); for
 * the training prompt, the schema form the export's fine-tuning files show
 * (`manifest.json`, `export.prompt_schema`).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { readManifest, type BuildManifest } from '../assemble/build-manifest.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import type { Domain } from '../er-model/er-model.ts';
import type { ExportRecord } from '../records/export-record.ts';
import { fullDdl, PROMPT_SCHEMAS, type PromptSchema } from '../export/prompt-schema.ts';
import { promptSchemaTexts } from '../export/prompt-schema-source.ts';
import { readManifestObject } from '../common/file-seal.ts';
import { groupsPath, readJsonLines } from '../records/groups-file.ts';
import type { GroupRecord } from '../records/group-record.ts';
import type { VariantSpec } from '../variants/variant-spec.ts';
import type { EvalPrompt } from './eval-summary.ts';

/** One variant as the evaluation uses it. */
export interface EvalVariant {
  readonly name: string;
  readonly spec: VariantSpec;
  /** The prompt's schema: `schemas/<variant>.sql` without its header and settings. */
  readonly ddl: string;
  /** The training prompt's schema: the form `finetune/` shows (read when the training prompt is asked). */
  readonly trainingDdl: string | undefined;
  /** The PostgreSQL schema of the main instance. */
  readonly mainSchema: string;
  /** The PostgreSQL schema of the edge-case instance, when the build has one. */
  readonly edgeSchema: string | undefined;
}

export interface EvalInputs {
  readonly dir: string;
  readonly split: string;
  readonly dataset: string;
  readonly domain: Domain;
  readonly manifest: BuildManifest;
  /** The variants scored, in the build's order. */
  readonly variants: readonly EvalVariant[];
  /** The split's rows on the variants scored, in the export's order. */
  readonly rows: readonly ExportRecord[];
  /** Per group id, the gold answer's hash on the edge instance (absent: no edge instance). */
  readonly edgeGold: ReadonlyMap<string, string>;
}

/** The split's data files, shards in order (`data/test-00000-of-00001.jsonl`, …). */
function splitFiles(dir: string, split: string): string[] {
  const data = join(dir, 'data');
  if (!existsSync(data)) throw new ConfigError(`--dir: ${dir} has no data/ (run equisql export --dir ${dir} first)`);
  const pattern = new RegExp(`^${split.replace(/[^a-z0-9_-]/giu, '')}-\\d{5}-of-\\d{5}\\.jsonl$`, 'u');
  const files = readdirSync(data)
    .filter((f) => pattern.test(f))
    .sort();
  if (files.length === 0) {
    const present = [
      ...new Set(
        readdirSync(data)
          .map((f) => /^([a-z]+)-\d{5}-of-\d{5}\.jsonl$/u.exec(f)?.[1])
          .filter((s): s is string => s !== undefined),
      ),
    ].sort();
    throw new ConfigError(`--split: ${dir}/data has no ${split} split (present: ${present.join(', ') || 'none'})`);
  }
  return files.map((f) => join(data, f));
}

/** The schema form the export's fine-tuning prompts show, from `manifest.json`. */
export function exportPromptSchema(dir: string): PromptSchema {
  const exported = readManifestObject(dir)?.['export'] as { prompt_schema?: unknown } | undefined;
  if (exported === undefined)
    throw new ConfigError(
      `--prompt training: ${join(dir, 'manifest.json')} has no export section (run equisql export --dir ${dir} first)`,
    );
  const form = exported.prompt_schema ?? 'compact';
  if (!PROMPT_SCHEMAS.includes(form as PromptSchema))
    throw new ConfigError(
      `--prompt training: ${join(dir, 'manifest.json')}: export.prompt_schema is ${JSON.stringify(form)}, not one of ${PROMPT_SCHEMAS.join(', ')}`,
    );
  return form as PromptSchema;
}

/**
 * Reads everything an evaluation needs from `dir`; `variants` limits the variants scored (all
 * when absent); `prompt` `training` also reads the fine-tuning prompt's schema of each. Bad input (no export, an unknown split or variant, rows of another build) is
 * a one-line ConfigError naming the file.
 *
 * @example
 * const inputs = readEvalInputs('output/social_media', 'test');
 * inputs.rows.length; // 2100
 */
export function readEvalInputs(
  dir: string,
  split: string,
  variants?: readonly string[],
  prompt: EvalPrompt = 'paper',
): EvalInputs {
  if (!/^[a-z][a-z0-9_-]{0,39}$/u.test(split))
    throw new ConfigError(`--split: expected a split name such as test, got ${JSON.stringify(split.slice(0, 40))}`);
  const manifest = readManifest(dir);
  const erPath = join(dir, 'er.json');
  if (!existsSync(erPath)) throw new ConfigError(`--dir: ${dir} has no er.json`);
  const domain = parseDomainJson(readFileSync(erPath, 'utf8'), erPath);
  const built = manifest.variants.map((v) => v.name);
  if (variants) {
    const unknown = variants.filter((v) => !built.includes(v));
    if (unknown.length > 0)
      throw new ConfigError(
        `--variants: no variant ${unknown.map((v) => JSON.stringify(v)).join(', ')} in ${dir} (built: ${built.join(', ')})`,
      );
  }
  const chosen = new Set(variants ?? built);
  const edgeDir = join(dir, 'edge');
  const edge = existsSync(join(edgeDir, 'build.json')) ? readManifest(edgeDir) : undefined;
  const form = prompt === 'training' ? exportPromptSchema(dir) : undefined;
  const compact = form === undefined || form === 'full' ? undefined : promptSchemaTexts(dir, form);
  const evalVariants = manifest.variants
    .filter((v) => chosen.has(v.name))
    .map((v): EvalVariant => {
      const path = join(dir, 'schemas', `${v.name}.sql`);
      if (!existsSync(path))
        throw new ConfigError(`--dir: ${path} is missing (rebuild with equisql build --out ${dir})`);
      const edgeSchema = edge?.variants.find((e) => e.name === v.name)?.pg_schema;
      if (edge && edgeSchema === undefined)
        throw new ConfigError(`${join(edgeDir, 'build.json')}: has no variant ${v.name}, which build.json has`);
      const ddl = fullDdl(readFileSync(path, 'utf8'));
      const trainingDdl = form === undefined ? undefined : form === 'full' ? ddl : compact?.get(v.name);
      return { name: v.name, spec: v.spec, ddl, trainingDdl, mainSchema: v.pg_schema, edgeSchema };
    });
  const rows: ExportRecord[] = [];
  for (const file of splitFiles(dir, split)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line === '') return;
        let row: ExportRecord;
        try {
          row = JSON.parse(line) as ExportRecord;
        } catch {
          throw new ConfigError(`${file}:${i + 1}: not a JSON line`);
        }
        if (typeof row.id !== 'string' || typeof row.sql !== 'string' || typeof row.result_hash !== 'string')
          throw new ConfigError(`${file}:${i + 1}: not an export row (no id, sql or result_hash)`);
        if (row.dataset !== manifest.dataset)
          throw new ConfigError(
            `${file}:${i + 1}: a row of dataset ${JSON.stringify(row.dataset)}, but ${dir} was built for ${manifest.dataset} (evaluate each generated directory on its own)`,
          );
        if (!built.includes(row.variant))
          throw new ConfigError(`${file}:${i + 1}: variant ${JSON.stringify(row.variant)} is not in build.json`);
        if (chosen.has(row.variant)) rows.push(row);
      });
  }
  const edgeGold = new Map<string, string>();
  if (edge) {
    const groups = readJsonLines<GroupRecord>(groupsPath(dir, manifest.dataset), false);
    for (const g of groups) {
      const main = g.verified_on.find((v) => v.profile === 'default');
      const onEdge = g.verified_on.find((v) => v.profile === 'edge');
      if (main && main.instance_hash !== manifest.instance_hash) continue;
      if (onEdge && onEdge.instance_hash === edge.instance_hash) edgeGold.set(g.group_id, onEdge.result_hash);
    }
    const lacking = rows.find((r) => !edgeGold.has(r.group_id));
    if (lacking)
      throw new ConfigError(
        `${groupsPath(dir, manifest.dataset)}: group ${lacking.group_id} has no answer on the edge instance of ${edgeDir} (regenerate with equisql generate --out ${dir})`,
      );
  }
  return { dir, split, dataset: manifest.dataset, domain, manifest, variants: evalVariants, rows, edgeGold };
}
