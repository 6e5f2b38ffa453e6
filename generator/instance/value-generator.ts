import { Faker, base, en } from '@faker-js/faker';
import type { Attribute, AttributeType } from '../er-model/er-model.ts';
import type { Rng } from '../common/rng.ts';
import { ConfigError } from '../common/errors.ts';
import type { Scalar } from './conceptual-instance.ts';

/**
 * Text that breaks naive SQL: quotes, backslashes, tabs and newlines (COPY escapes),
 * non-ASCII letters and scripts, an emoji. Instances mix these into every text attribute.
 */
export const ODD_TEXTS: readonly string[] = [
  "O'Brien",
  "Zoë's café",
  'naïve résumé',
  '東京タワー',
  'Straße über München',
  'say "hi"',
  'back\\slash',
  'tab\there',
  'line\nbreak',
  'gamer 🎮',
  "it's ''doubled''",
  'Ωmega, Ğüş',
  '',
  '  padded  ',
  'NULL',
  '\\N',
];

export interface GenerationRates {
  /** Default NULL rate for optional attributes without a hint. */
  readonly nullRate: number;
  /** Share of text values replaced by one of ODD_TEXTS. */
  readonly oddTextRate: number;
  /** Share of numeric values that repeat an earlier value (ties). */
  readonly tieRate: number;
  /** Share of optional sets forced empty. */
  readonly emptySetRate: number;
}

const DAY_MS = 86_400_000;
const FAKER_REFERENCE_DATE = '2025-06-30T00:00:00.000Z';

function toEpoch(bound: number | string | undefined, fallback: string): number {
  if (typeof bound === 'number') return bound;
  return Date.parse(`${bound ?? fallback}T00:00:00Z`);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `2024-03-05 07:08:09+00`, the canonical timestamptz text. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00`;
}

export function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/**
 * Draws values of one attribute from its own random stream. Faker is seeded from that
 * stream, so adding an attribute to a model never changes another attribute's values.
 */
export class ValueGenerator {
  private readonly faker: Faker;
  private readonly previous: Scalar[] = [];
  private readonly seen = new Set<Scalar>();
  private readonly fakerMethod: (() => unknown) | undefined;

  constructor(
    private readonly attribute: Attribute,
    private readonly path: string,
    private readonly rng: Rng,
    private readonly rates: GenerationRates,
  ) {
    this.faker = new Faker({ locale: [en, base] });
    this.faker.seed(rng.int32());
    // Faker's date methods count from "now" unless told otherwise; the data must not.
    this.faker.setDefaultRefDate(FAKER_REFERENCE_DATE);
    const fakerPath = attribute.hints?.faker;
    if (fakerPath) {
      const [group, method] = fakerPath.split('.');
      const module = (this.faker as unknown as Record<string, Record<string, unknown> | undefined>)[group ?? ''];
      const fn = module?.[method ?? ''];
      if (typeof fn !== 'function') throw new ConfigError(`${path}.hints.faker: faker has no method "${fakerPath}"`);
      this.fakerMethod = () => {
        const value = (fn as () => unknown).call(module);
        return value instanceof Date ? formatTimestamp(value.getTime()) : value;
      };
    }
  }

  /** One value, never NULL (NULLs and empty sets are decided by the caller). */
  next(): Scalar {
    const hints = this.attribute.hints;
    const unique = hints?.unique === true;
    let value = this.draw(this.attribute.type);
    if (unique) {
      for (let i = 2; this.seen.has(value); i++) value = typeof value === 'number' ? value + 1 : `${String(value)} ${i}`;
      this.seen.add(value);
    }
    return value;
  }

  /** A set of distinct values with a size drawn from the hints. */
  nextSet(min: number, max: number): Scalar[] {
    const size = this.rng.int(min, max);
    const out = new Set<Scalar>();
    for (let tries = 0; out.size < size && tries < size * 10; tries++) out.add(this.draw(this.attribute.type));
    return [...out];
  }

  private draw(type: AttributeType): Scalar {
    const hints = this.attribute.hints;
    const rng = this.rng;
    switch (type.kind) {
      case 'integer':
      case 'bigint': {
        if (this.previous.length > 0 && rng.chance(this.rates.tieRate)) return rng.pick(this.previous);
        const lo = typeof hints?.min === 'number' ? hints.min : 0;
        const hi = typeof hints?.max === 'number' ? hints.max : 1000;
        const v = rng.int(lo, hi);
        this.remember(v);
        return v;
      }
      case 'numeric': {
        if (this.previous.length > 0 && rng.chance(this.rates.tieRate)) return rng.pick(this.previous);
        const limit = 10 ** (type.precision - type.scale) - 1;
        const lo = typeof hints?.min === 'number' ? hints.min : 0;
        const hi = Math.min(typeof hints?.max === 'number' ? hints.max : 1000, limit);
        const factor = 10 ** type.scale;
        const units = rng.int(Math.ceil(lo * factor), Math.floor(hi * factor));
        const v = (units / factor).toFixed(type.scale);
        this.remember(v);
        return v;
      }
      case 'boolean':
        return rng.chance(0.5);
      case 'enum':
        return rng.pick(type.values);
      case 'date': {
        const lo = toEpoch(hints?.min, '2015-01-01');
        const hi = toEpoch(hints?.max, '2025-12-31');
        if (this.previous.length > 0 && rng.chance(this.rates.tieRate)) return rng.pick(this.previous);
        const v = formatDate(lo + rng.int(0, Math.floor((hi - lo) / DAY_MS)) * DAY_MS);
        this.remember(v);
        return v;
      }
      case 'timestamptz': {
        const lo = toEpoch(hints?.min, '2019-01-01');
        const hi = toEpoch(hints?.max, '2025-12-31');
        if (this.previous.length > 0 && rng.chance(this.rates.tieRate)) return rng.pick(this.previous);
        const v = formatTimestamp(lo + rng.int(0, Math.floor((hi - lo) / 1000)) * 1000);
        this.remember(v);
        return v;
      }
      case 'text': {
        if (rng.chance(this.rates.oddTextRate)) return rng.pick(ODD_TEXTS);
        if (hints?.pool && hints.pool.length > 0) return rng.pick(hints.pool);
        if (this.fakerMethod) return String(this.fakerMethod());
        return this.faker.lorem.words(rng.int(1, 3));
      }
    }
  }

  private remember(v: Scalar): void {
    if (this.previous.length < 64) this.previous.push(v);
  }
}
