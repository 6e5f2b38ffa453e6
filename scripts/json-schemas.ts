/**
 * Generates the JSON Schemas of the user-facing formats from their one source of truth, the
 * TypeScript types: `schemas/er-model.schema.json` (the `DomainDocument` of er-model.ts) and
 * `schemas/conceptual-query.schema.json` (the `QueryDocument` of conceptual-query.ts).
 *
 *   npm run schemas          rewrites both files
 *
 * test/er-model/json-schemas.test.ts fails when the committed files differ from what this
 * produces, so a change to the types must come with regenerated schemas.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGenerator } from 'ts-json-schema-generator';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const FORMATS = [
  {
    file: 'schemas/er-model.schema.json',
    source: 'generator/er-model/er-model.ts',
    type: 'DomainDocument',
    title: 'equisql E/R model',
    description: 'An E/R model (er.json, or a JSON model given to --dataset). See docs/er-model.md.',
  },
  {
    file: 'schemas/conceptual-query.schema.json',
    source: 'generator/query/conceptual-query.ts',
    type: 'QueryDocument',
    title: 'equisql conceptual query',
    description:
      'A query over the conceptual schema of an E/R model (compile --query FILE.json). See docs/conceptual-query.md.',
  },
] as const;

/** The text of each schema file, keyed by its path relative to the repository root. */
export function renderJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const format of FORMATS) {
    const generator = createGenerator({
      path: join(ROOT, format.source),
      type: format.type,
      tsconfig: join(ROOT, 'tsconfig.json'),
      skipTypeCheck: true,
      expose: 'export',
      topRef: true,
      jsDoc: 'extended',
      additionalProperties: false,
      sortProps: true,
    });
    const { $schema, ...rest } = generator.createSchema(format.type) as Record<string, unknown>;
    const document = { $schema, title: format.title, description: format.description, ...rest };
    out[format.file] = `${JSON.stringify(document, null, 2)}\n`;
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(renderJsonSchemas())) {
    writeFileSync(join(ROOT, file), text);
    process.stdout.write(`wrote ${file}\n`);
  }
}
