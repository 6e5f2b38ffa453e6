import type { ErIndex } from '../er-model/er-index.ts';
import { ConfigError } from '../common/errors.ts';
import { createRng } from '../common/rng.ts';
import type { VariantSpec } from './variant-spec.ts';
import { PRESET_NAMES, allPresets, presetVariant } from './variant-presets.ts';
import { drawRandomVariants } from './random-variants.ts';

/**
 * Parses `--variants`: `all` (the ten presets), preset names, and `random:K` (K further
 * variants drawn from the seed, distinct from the presets and from each other), separated
 * by commas, in the order given.
 *
 * @example selectVariants(index, 'full_sti,random:2', 7).map((v) => v.name) // ['full_sti', 'random_1', 'random_2']
 */
export function selectVariants(index: ErIndex, selection: string, seed: string | number): VariantSpec[] {
  const out: VariantSpec[] = [];
  const add = (v: VariantSpec): void => {
    if (!out.some((o) => o.name === v.name)) out.push(v);
  };
  const items = selection.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new ConfigError('--variants: empty selection');
  for (const item of items) {
    const random = /^random:(\d+)$/.exec(item);
    if (item === 'all') allPresets(index).forEach(add);
    else if (random) {
      const k = Number(random[1]);
      if (k < 1) throw new ConfigError(`--variants: random:${random[1]} must draw at least one variant`);
      drawRandomVariants(index, k, createRng(seed).fork('variants'), allPresets(index)).forEach(add);
    } else if ((PRESET_NAMES as readonly string[]).includes(item)) add(presetVariant(index, item));
    else throw new ConfigError(`--variants: unknown variant "${item}" (presets: ${PRESET_NAMES.join(', ')}; all; random:K)`);
  }
  return out;
}
