import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { indexDomain, type ErIndex } from '../er-model/er-index.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { readManifest } from '../assemble/verify-dataset.ts';
import { refuseIfLocked } from '../assemble/dir-lock.ts';
import type { BuildManifest } from '../assemble/build-dataset.ts';

/** A built directory's manifest and E/R model, as the query commands need them. */
export function openBuiltDir(dir: string): { manifest: BuildManifest; index: ErIndex } {
  refuseIfLocked(dir);
  const manifest = readManifest(dir);
  const erPath = join(dir, 'er.json');
  if (!existsSync(erPath)) throw new ConfigError(`--dir: ${dir} has no er.json`);
  return { manifest, index: indexDomain(parseDomainJson(readFileSync(erPath, 'utf8'), erPath)) };
}
