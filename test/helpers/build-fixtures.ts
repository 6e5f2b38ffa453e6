import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import type { InstanceProfile } from '../../generator/instance/conceptual-instance.ts';

/** The three instances every domain is checked on: two ordinary seeds and one rich in edge cases. */
export const INSTANCES: readonly { readonly seed: number; readonly profile: InstanceProfile }[] = [
  { seed: 1, profile: 'default' },
  { seed: 2, profile: 'default' },
  { seed: 3, profile: 'edge' },
];

export const DOMAINS: readonly [string, Domain][] = Object.entries(BUILT_IN_DOMAINS);

/** A fresh temporary directory; removed by the returned function. */
export function tempDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `equisql-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
