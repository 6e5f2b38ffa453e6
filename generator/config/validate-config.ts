import { ConfigError } from '../common/errors.ts';
import { MODEL_LIMITS } from '../er-model/validate-domain.ts';
import { SCALE_PRESETS } from '../instance/conceptual-instance.ts';
import type { DatasetDefinition } from './define-config.ts';

const DATASET_KEYS: readonly (keyof DatasetDefinition)[] = ['domain', 'description', 'scale', 'seed', 'profile', 'counts', 'variants', 'difficulty', 'tail'];
const DIFFICULTY_KEYS = ['easy', 'medium', 'hard', 'extra'];
const PROFILES = ['default', 'edge'];
/** The seeds `build` accepts: they end up in file headers and manifests. */
const SEED_TEXT = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A value as a one-line message quotes it, cut short. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  // JSON escapes control characters but not the two Unicode line separators.
  const text = (JSON.stringify(value) ?? String(value)).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The allowed key closest to a misspelled one, if any is close. */
function nearest(key: string, allowed: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0] as number;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const above = row[j] as number;
        row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length] as number;
  };
  return allowed.find((k) => distance(k, key.slice(0, 40)) <= Math.max(1, Math.floor(k.length / 3)));
}

/**
 * Checks one dataset of a config, as the loader reads it (a TypeScript config is typed, but
 * nothing stops a user from writing anything), and returns it typed. Messages name the
 * dataset's path: `datasets.shop.scale: must be one of tiny, small, paper, large, got "huge"`.
 * The domain itself is checked by the model validator when it is resolved.
 *
 * @example
 * validateDataset({ domain: 'retail', scale: 'gigantic' }, 'datasets.shop')
 * // throws ConfigError: datasets.shop.scale: must be one of tiny, small, paper, large, got "gigantic"
 */
export function validateDataset(definition: unknown, where: string): DatasetDefinition {
  const fail = (path: string, message: string): never => {
    throw new ConfigError(`${where}${path}: ${message}`);
  };
  if (!isRecord(definition)) return fail('', `must be an object {domain, scale, seed, …}, got ${show(definition)}`);
  for (const key of Object.keys(definition)) {
    if ((DATASET_KEYS as readonly string[]).includes(key)) continue;
    const near = nearest(key, DATASET_KEYS);
    fail(`[${show(key)}]`, `unknown key (${near === undefined ? `expected one of ${DATASET_KEYS.join(', ')}` : `did you mean "${near}"?`})`);
  }
  const { domain, description, scale, seed, profile, counts, variants, difficulty, tail } = definition;
  if (typeof domain !== 'string' && !isRecord(domain)) fail('.domain', `must be a built-in domain's name, a path to a .json model or a domain object, got ${show(domain)}`);
  if (description !== undefined && typeof description !== 'string') fail('.description', `must be a string, got ${show(description)}`);
  if (scale !== undefined && !(typeof scale === 'string' && (SCALE_PRESETS as readonly string[]).includes(scale))) {
    fail('.scale', `must be one of ${SCALE_PRESETS.join(', ')}, got ${show(scale)}`);
  }
  if (seed !== undefined) {
    if (typeof seed === 'number') {
      // A double above 2^53 is no longer the number written, so two seeds would collide.
      if (!Number.isSafeInteger(seed)) fail('.seed', `must be an integer of at most 2^53 - 1 in size (or a string), got ${show(seed)}`);
    } else if (typeof seed !== 'string' || !SEED_TEXT.test(seed)) {
      fail('.seed', `must be an integer or 1 to 64 letters, digits or . _ : -, got ${show(seed)}`);
    }
  }
  if (profile !== undefined && !(typeof profile === 'string' && PROFILES.includes(profile))) fail('.profile', `must be default or edge, got ${show(profile)}`);
  if (counts !== undefined) {
    if (!isRecord(counts)) fail('.counts', `must be an object {Entity: N}, got ${show(counts)}`);
    for (const [name, count] of Object.entries(counts as Record<string, unknown>)) {
      const path = /^[A-Za-z_]\w*$/.test(name) ? `.counts.${name}` : `.counts[${show(name)}]`;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) fail(path, `must be a non-negative integer, got ${show(count)}`);
      if ((count as number) > MODEL_LIMITS.countPerEntity) fail(path, `must be at most ${MODEL_LIMITS.countPerEntity} objects per entity, got ${count as number}`);
    }
  }
  if (variants !== undefined && !(typeof variants === 'string' && variants.trim() !== '')) {
    fail('.variants', `must be a string such as "all", "full_sti,full_cti" or "random:4", got ${show(variants)}`);
  }
  // Read by `generate` only, but checked here with the rest so `build` accepts the same file.
  if (difficulty !== undefined) {
    if (!isRecord(difficulty)) fail('.difficulty', `must be an object {easy, medium, hard, extra} of shares, got ${show(difficulty)}`);
    for (const [name, share] of Object.entries(difficulty as Record<string, unknown>)) {
      if (!DIFFICULTY_KEYS.includes(name)) fail(`.difficulty[${show(name)}]`, `unknown difficulty (expected one of ${DIFFICULTY_KEYS.join(', ')})`);
      if (typeof share !== 'number' || !Number.isFinite(share) || share < 0) fail(`.difficulty.${name}`, `must be a non-negative number, got ${show(share)}`);
    }
  }
  if (tail !== undefined && !(typeof tail === 'number' && tail >= 0 && tail <= 1)) fail('.tail', `must be a share in [0, 1], got ${show(tail)}`);
  return definition as unknown as DatasetDefinition;
}
