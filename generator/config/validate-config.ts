import { ConfigError } from '../common/errors.ts';
import { MODEL_LIMITS, editDistance } from '../er-model/validate-domain.ts';
import { SCALE_PRESETS } from '../instance/conceptual-instance.ts';
import type { DatasetDefinition } from './define-config.ts';

// A record, not a list, so a key added to DatasetDefinition is a compile error until it is checked here.
const KNOWN: Record<keyof DatasetDefinition, true> = {
  domain: true,
  description: true,
  scale: true,
  seed: true,
  profile: true,
  counts: true,
  variants: true,
  difficulty: true,
  tail: true,
  card: true,
};
const DATASET_KEYS = Object.keys(KNOWN) as (keyof DatasetDefinition)[];
const DIFFICULTY_LEVELS = ['easy', 'medium', 'hard', 'extra'];
const PROFILES = ['default', 'edge'];
/** The seeds `build` accepts: they end up in file headers and manifests. */
const SEED_TEXT = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A value as a one-line message quotes it, cut short. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  // JSON escapes control characters but not the two Unicode line separators.
  const text = (JSON.stringify(value) ?? String(value)).replace(
    /[\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The allowed key closest to a misspelled one, if any is close. */
function nearest(key: string, allowed: readonly string[]): string | undefined {
  return allowed.find((k) => editDistance(k, key.slice(0, 40)) <= Math.max(1, Math.floor(k.length / 3)));
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
    fail(
      `[${show(key)}]`,
      `unknown key (${near === undefined ? `expected one of ${DATASET_KEYS.join(', ')}` : `did you mean "${near}"?`})`,
    );
  }
  const { domain, description, scale, seed, profile, counts, variants, difficulty, tail } = definition;
  if (typeof domain !== 'string' && !isRecord(domain))
    fail(
      '.domain',
      `must be a built-in domain's name, a path to a .json model or a domain object, got ${show(domain)}`,
    );
  if (description !== undefined && typeof description !== 'string')
    fail('.description', `must be a string, got ${show(description)}`);
  if (scale !== undefined && !(typeof scale === 'string' && (SCALE_PRESETS as readonly string[]).includes(scale))) {
    fail('.scale', `must be one of ${SCALE_PRESETS.join(', ')}, got ${show(scale)}`);
  }
  if (seed !== undefined) {
    if (typeof seed === 'number') {
      // A double above 2^53 is no longer the number written, so two seeds would collide.
      if (!Number.isInteger(seed))
        fail('.seed', `must be an integer or 1 to 64 letters, digits or . _ : -, got ${show(seed)}`);
      if (!Number.isSafeInteger(seed))
        fail(
          '.seed',
          `${show(seed)} is above 2^53-1 and was already rounded when the config was read; write the seed as a string`,
        );
    } else if (typeof seed !== 'string' || !SEED_TEXT.test(seed)) {
      fail('.seed', `must be an integer or 1 to 64 letters, digits or . _ : -, got ${show(seed)}`);
    }
  }
  if (profile !== undefined && !(typeof profile === 'string' && PROFILES.includes(profile)))
    fail('.profile', `must be default or edge, got ${show(profile)}`);
  if (counts !== undefined) {
    if (!isRecord(counts)) fail('.counts', `must be an object {Entity: N}, got ${show(counts)}`);
    for (const [name, count] of Object.entries(counts as Record<string, unknown>)) {
      const path = /^[A-Za-z_]\w*$/.test(name) ? `.counts.${name}` : `.counts[${show(name)}]`;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
        fail(path, `must be a non-negative integer, got ${show(count)}`);
      if ((count as number) > MODEL_LIMITS.countPerEntity)
        fail(path, `must be at most ${MODEL_LIMITS.countPerEntity} objects per entity, got ${count as number}`);
    }
  }
  if (variants !== undefined && !(typeof variants === 'string' && variants.trim() !== '')) {
    fail('.variants', `must be a string such as "all", "full_sti,full_cti" or "random:4", got ${show(variants)}`);
  }
  if (difficulty !== undefined) {
    if (!isRecord(difficulty))
      fail('.difficulty', `must be an object {easy, medium, hard, extra} of shares, got ${show(difficulty)}`);
    let total = 0;
    for (const [level, share] of Object.entries(difficulty as Record<string, unknown>)) {
      if (!DIFFICULTY_LEVELS.includes(level))
        fail(`.difficulty[${show(level)}]`, `unknown level (expected one of ${DIFFICULTY_LEVELS.join(', ')})`);
      if (typeof share !== 'number' || !Number.isFinite(share) || share < 0 || share > 1)
        fail(`.difficulty.${level}`, `must be a share between 0 and 1, got ${show(share)}`);
      total += share as number;
    }
    if (total <= 0) fail('.difficulty', 'the shares must not all be 0');
  }
  if (tail !== undefined && !(typeof tail === 'number' && Number.isFinite(tail) && tail >= 0 && tail <= 1))
    fail('.tail', `must be a share between 0 and 1, got ${show(tail)}`);
  if (definition['card'] !== undefined)
    validateCard(definition['card'], (path, message) => fail(`.card${path}`, message));
  return definition as unknown as DatasetDefinition;
}

const CARD_TEXT = ['license', 'license_name', 'license_link', 'pretty_name'] as const;
const CARD_LISTS = ['annotations_creators', 'language', 'task_categories', 'source_datasets', 'tags'] as const;

/** A dataset's `card`: known keys only, texts as strings, lists as lists of non-empty strings. */
function validateCard(card: unknown, fail: (path: string, message: string) => never): void {
  if (!isRecord(card)) fail('', `must be an object {license, pretty_name, …}, got ${show(card)}`);
  const keys: readonly string[] = [...CARD_TEXT, ...CARD_LISTS];
  for (const [key, value] of Object.entries(card as Record<string, unknown>)) {
    if (!keys.includes(key)) {
      const near = nearest(key, keys);
      fail(
        `[${show(key)}]`,
        `unknown key (${near === undefined ? `expected one of ${keys.join(', ')}` : `did you mean "${near}"?`})`,
      );
    }
    if (
      (CARD_TEXT as readonly string[]).includes(key) &&
      !(typeof value === 'string' && value.trim() !== '' && !/[\r\n]/u.test(value))
    )
      fail(`.${key}`, `must be one line of text, got ${show(value)}`);
    if (
      (CARD_LISTS as readonly string[]).includes(key) &&
      !(Array.isArray(value) && value.every((v) => typeof v === 'string' && v.trim() !== '' && !/[\r\n]/u.test(v)))
    )
      fail(`.${key}`, `must be a list of one-line texts, got ${show(value)}`);
  }
}
