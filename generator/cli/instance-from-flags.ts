import { ConfigError } from '../common/errors.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { ConceptualInstance } from '../instance/conceptual-instance.ts';
import type { FlagTable } from './flag-table.ts';

/** `--instance-from` and `--sample`, shared by build and generate. */
export const INSTANCE_FROM_FLAGS = {
  'instance-from': {
    type: 'string',
    value: 'SOURCE',
    help: "the main instance is the rows of this database (postgres://… read-only, or a SQLite file) through the model's physical names, not one generated from the seed",
  },
  sample: {
    type: 'string',
    value: 'N',
    help: 'with --instance-from: at most N objects of each root entity, drawn from the seed, plus every object they refer to (foreign keys stay closed)',
  },
} as const satisfies FlagTable;

/** The source's rows as the main instance, when --instance-from is given; the password never leaves the URL. */
export async function instanceFromFlags(
  command: string,
  flags: { readonly 'instance-from'?: string; readonly sample?: string },
  index: ErIndex,
  seed: string | number,
): Promise<{ instance: ConceptualInstance; source: string; sample?: number } | undefined> {
  const source = flags['instance-from'];
  if (flags.sample !== undefined && source === undefined)
    throw new ConfigError(`${command}: --sample goes with --instance-from`);
  if (source === undefined) return undefined;
  let sample: number | undefined;
  if (flags.sample !== undefined) {
    if (!/^\d+$/u.test(flags.sample) || Number(flags.sample) < 1)
      throw new ConfigError(`${command}: --sample must be a whole positive number, got "${flags.sample}"`);
    sample = Number(flags.sample);
  }
  const { readSourceInstance } = await import('../instance/source-instance.ts');
  const { sampleInstance } = await import('../instance/sample-instance.ts');
  const whole = await readSourceInstance(index, source);
  const instance = sample === undefined ? whole : sampleInstance(index, whole, sample, seed);
  return { instance, source: safeSource(source), ...(sample !== undefined ? { sample } : {}) };
}

/** A URL without its password (a file path as given). */
export function safeSource(source: string): string {
  if (!/^postgres(ql)?:\/\//u.test(source)) return source;
  try {
    const u = new URL(source);
    if (u.password) u.password = '';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
