/**
 * The prompt schemas of a generated directory: each variant's compact DDL, built from the
 * E/R model and the variant specs the build recorded, with example values from the main
 * instance (regenerated from the recorded seed, as `verify` does) for `compact+values`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifest } from '../assemble/build-manifest.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { type ErIndex, indexDomain } from '../er-model/er-index.ts';
import type { Domain } from '../er-model/er-model.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import { generateInstance } from '../instance/generate-instance.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { columnExamples, compactDdl, type PromptSchema } from './prompt-schema.ts';

/**
 * Per variant of the build in `dir`, the schema text a prompt shows in the `compact` or
 * `compact+values` form.
 *
 * @example
 * promptSchemaTexts('output/social_media', 'compact').get('full_sti'); // 'CREATE TABLE account (…'
 */
export function promptSchemaTexts(
  dir: string,
  kind: Exclude<PromptSchema, 'full'>,
  built: BuiltSchemas = builtSchemas(dir),
): Map<string, string> {
  const { build, domain, index, schemas } = built;
  const instance =
    kind === 'compact+values'
      ? generateInstance(domain, { seed: build.seed, scale: build.scale, profile: build.profile, counts: build.counts })
      : undefined;
  return new Map(
    [...schemas].map(([name, schema]) => [
      name,
      compactDdl(schema, instance ? columnExamples(index, instance, schema) : undefined),
    ]),
  );
}

/** A build's record, the model it was built from and each variant's relational schema. */
export interface BuiltSchemas {
  readonly build: ReturnType<typeof readManifest>;
  readonly domain: Domain;
  readonly index: ErIndex;
  /** By variant name. */
  readonly schemas: ReadonlyMap<string, RelationalSchema>;
}

/** The relational schema of each variant of the build in `dir`, with the model it was built from. */
export function builtSchemas(dir: string): BuiltSchemas {
  const build = readManifest(dir);
  const erPath = join(dir, 'er.json');
  const domain = parseDomainJson(readFileSync(erPath, 'utf8'), erPath);
  const index = indexDomain(domain);
  return {
    build,
    domain,
    index,
    schemas: new Map(build.variants.map((v) => [v.name, buildRelationalSchema(index, v.spec)])),
  };
}
