import { readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer';
import { parseDomainJson } from './generator/er-model/domain-json.ts';
import { indexDomain } from './generator/er-model/er-index.ts';
import { readManifest } from './generator/assemble/build-manifest.ts';
import { buildRelationalSchema } from './generator/variants/build-schema.ts';
import { generateInstance } from './generator/instance/generate-instance.ts';
import { compactDdl, columnExamples, fullDdl } from './generator/export/prompt-schema.ts';
const dir = process.argv[2];
const m = readManifest(dir);
const domain = parseDomainJson(readFileSync(`${dir}/er.json`, 'utf8'), 'er.json');
const index = indexDomain(domain);
const inst = generateInstance(domain, { seed: m.seed, scale: m.scale, profile: m.profile, counts: m.counts });
for (const v of m.variants) {
  const s = buildRelationalSchema(index, v.spec);
  const full = fullDdl(readFileSync(`${dir}/schemas/${v.name}.sql`, 'utf8'));
  const c = compactDdl(s); const cv = compactDdl(s, columnExamples(index, inst, s));
  console.log(v.name, countTokens(full), countTokens(c), countTokens(cv));
  if (v.name === process.argv[3]) console.log(cv);
}
