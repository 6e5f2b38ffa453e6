import type { ErIndex } from '../er-model/er-index.ts';
import { ConfigError } from '../common/errors.ts';
import { createRng } from '../common/rng.ts';
import type { VariantSpec } from './variant-spec.ts';
import { PRESET_NAMES, allPresets, presetFallback, presetVariant } from './variant-presets.ts';
import { designSpaceSize, drawRandomVariants, variantSignature } from './random-variants.ts';
import { hasPhysicalNames, NATIVE_VARIANT, nativeVariant } from './native-names.ts';

/**
 * The most random variants one selection may draw. Each variant is a database schema that
 * `build` shreds, writes twice (schema and dump) and loads; past a few hundred a build takes
 * hours and gigabytes while adding designs that differ from earlier ones only in detail.
 */
export const MAX_RANDOM_VARIANTS = 200;

/** The variants of a selection, and what was left out of it and why (one line each). */
export interface VariantSelection {
  readonly variants: readonly VariantSpec[];
  readonly notes: readonly string[];
}

/**
 * Parses `--variants`: `all` (the ten presets, and `native` for a model with physical
 * names), preset names, `native` (the database an imported model was read from), and `random:K` (K further
 * variants drawn from the seed, distinct from the presets and from each other), separated
 * by commas, in the order given.
 *
 * @example selectVariants(index, 'full_sti,random:2', 7).map((v) => v.name) // ['full_sti', 'random_1', 'random_2']
 */
export function selectVariants(index: ErIndex, selection: string, seed: string | number): VariantSpec[] {
  return [...selectVariantsReport(index, selection, seed).variants];
}

/**
 * `selectVariants`, reporting what it left out. Two variants with the same design (the
 * same shredding choices; names and table naming aside) are one variant: the first keeps
 * its name and each later one is dropped with a note, e.g. on a domain with an overlapping
 * hierarchy `full_concrete: same design as full_cti (overlapping hierarchy Person cannot be
 * stored as concrete tables); left out`. `random:K` is refused, before any drawing, above
 * MAX_RANDOM_VARIANTS or above the number of designs the domain admits beyond the presets.
 */
export function selectVariantsReport(index: ErIndex, selection: string, seed: string | number): VariantSelection {
  const out: VariantSpec[] = [];
  const notes: string[] = [];
  const bySignature = new Map<string, string>();
  const add = (v: VariantSpec): void => {
    if (out.some((o) => o.name === v.name)) return;
    const signature = variantSignature(v);
    const same = bySignature.get(signature);
    if (same !== undefined) {
      const why = presetFallback(index, v.name) ?? presetFallback(index, same);
      notes.push(`${v.name}: same design as ${same}${why ? ` (${why})` : ''}; left out`);
      return;
    }
    bySignature.set(signature, v.name);
    out.push(v);
  };
  const items = selection
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new ConfigError('--variants: empty selection');
  for (const item of items) {
    const random = /^random:(\d+)$/.exec(item);
    if (item === 'all') {
      allPresets(index).forEach(add);
      // A model read from a database has one more: that database itself.
      if (hasPhysicalNames(index)) add(nativeVariant(index));
    } else if (item === NATIVE_VARIANT) add(nativeVariant(index));
    else if (random) {
      const k = Number(random[1]);
      if (k < 1) throw new ConfigError(`--variants: random:${random[1]} must draw at least one variant`);
      if (k > MAX_RANDOM_VARIANTS) {
        throw new ConfigError(
          `--variants: random:${random[1]}: at most ${MAX_RANDOM_VARIANTS} random variants can be drawn at once`,
        );
      }
      const presets = allPresets(index);
      const available = designSpaceSize(index) - new Set(presets.map(variantSignature)).size;
      if (k > available) {
        throw new ConfigError(
          `--variants: random:${k}: domain ${index.domain.name} admits only ${Math.max(0, available)} distinct variants beyond the presets`,
        );
      }
      drawRandomVariants(index, k, createRng(seed).fork('variants'), presets).forEach(add);
    } else if ((PRESET_NAMES as readonly string[]).includes(item)) add(presetVariant(index, item));
    else
      throw new ConfigError(
        `--variants: unknown variant "${item}" (presets: ${PRESET_NAMES.join(', ')}; all; random:K; native for an imported model)`,
      );
  }
  return { variants: out, notes };
}
