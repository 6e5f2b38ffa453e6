import { Faker, base, en } from '@faker-js/faker';
import type { Attribute, AttributeType } from '../er-model/er-model.ts';
import type { Rng } from '../common/rng.ts';
import { ConfigError } from '../common/errors.ts';
import type { Scalar } from './conceptual-instance.ts';

/**
 * Text that breaks naive SQL: quotes, backslashes, tabs and newlines (COPY escapes),
 * non-ASCII letters and scripts, an emoji. The edge-case instance mixes all of these into
 * every text attribute.
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
  /** Share of text values replaced by one of `oddTexts`. */
  readonly oddTextRate: number;
  /**
   * The odd texts this profile draws from and plants in every text attribute: `ODD_TEXTS` on
   * the edge-case instance, none on the main one, whose text reads like real data.
   */
  readonly oddTexts: readonly string[];
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

/** A timestamp's canonical text: with `+00` for a timestamptz, without an offset for a timestamp. */
function timestampText(kind: 'timestamptz' | 'timestamp', ms: number): string {
  const text = formatTimestamp(ms);
  return kind === 'timestamp' ? text.slice(0, -3) : text;
}

export function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/**
 * How many distinct values an attribute's type and hints allow, or Infinity when a generator
 * can always make another (free text). A unique attribute needs at least one per object.
 */
export function distinctCapacity(attribute: Attribute): number {
  const type = attribute.type;
  const hints = attribute.hints;
  switch (type.kind) {
    case 'boolean':
      return 2;
    case 'enum':
      return new Set(type.values).size;
    case 'text':
      return hints?.pool && hints.pool.length > 0 ? new Set(hints.pool).size : Infinity;
    case 'integer':
    case 'bigint': {
      const [lo, hi] = integerBounds(attribute);
      return Math.max(0, hi - lo + 1);
    }
    case 'numeric': {
      const [lo, hi] = numericUnits(attribute);
      return Math.max(0, hi - lo + 1);
    }
    case 'date': {
      const [lo, hi] = dateBounds(attribute);
      return Math.max(0, Math.floor((hi - lo) / DAY_MS) + 1);
    }
    case 'timestamptz':
    case 'timestamp': {
      const [lo, hi] = timestampBounds(attribute);
      return Math.max(0, Math.floor((hi - lo) / 1000) + 1);
    }
  }
}

function integerBounds(attribute: Attribute): [number, number] {
  const hints = attribute.hints;
  return [typeof hints?.min === 'number' ? hints.min : 0, typeof hints?.max === 'number' ? hints.max : 1000];
}

/** Bounds of a numeric attribute in units of its last digit (cents for scale 2). */
function numericUnits(attribute: Attribute): [number, number] {
  const type = attribute.type as Extract<AttributeType, { kind: 'numeric' }>;
  const hints = attribute.hints;
  const limit = 10 ** (type.precision - type.scale) - 1;
  const lo = typeof hints?.min === 'number' ? hints.min : 0;
  const hi = Math.min(typeof hints?.max === 'number' ? hints.max : 1000, limit);
  const factor = 10 ** type.scale;
  return [Math.ceil(lo * factor), Math.floor(hi * factor)];
}

function dateBounds(attribute: Attribute): [number, number] {
  return [toEpoch(attribute.hints?.min, '2015-01-01'), toEpoch(attribute.hints?.max, '2025-12-31')];
}

function timestampBounds(attribute: Attribute): [number, number] {
  return [toEpoch(attribute.hints?.min, '2019-01-01'), toEpoch(attribute.hints?.max, '2025-12-31')];
}

/**
 * Draws values of one attribute from its own random stream. Faker is seeded from that
 * stream, so adding an attribute to a model never changes another attribute's values.
 */
export class ValueGenerator {
  private readonly faker: Faker;
  private readonly previous: Scalar[] = [];
  private readonly seen = new Set<Scalar>();
  /** Unique text: the next suffix to try for each drawn base value, so a repeat costs O(1). */
  private readonly nextSuffix = new Map<string, number>();
  /** Unique values drawn without replacement (a pool or an enum): what is left to draw. */
  private remaining: string[] | undefined;
  /** Unique values that repeated an earlier one and had to be changed. */
  collisions = 0;
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
    if (this.attribute.hints?.unique !== true) return this.draw(this.attribute.type);
    const closed = this.closedValues();
    if (closed) return this.drawWithoutReplacement(closed);
    let value = this.draw(this.attribute.type);
    if (this.seen.has(value)) {
      this.collisions++;
      value =
        typeof value === 'string' && this.attribute.type.kind === 'text' ? this.suffixed(value) : this.following(value);
    }
    this.seen.add(value);
    return value;
  }

  /**
   * A unique pool or enum is a closed set of values: drawing it without replacement keeps
   * every value inside it (the caller has checked there are enough).
   */
  private closedValues(): readonly string[] | undefined {
    const type = this.attribute.type;
    if (type.kind === 'enum') return type.values;
    if (type.kind === 'text' && this.attribute.hints?.pool && this.attribute.hints.pool.length > 0)
      return this.attribute.hints.pool;
    return undefined;
  }

  private drawWithoutReplacement(values: readonly string[]): Scalar {
    this.remaining ??= [...new Set(values)];
    if (this.remaining.length === 0)
      throw new ConfigError(`${this.path}.hints.unique: every one of its ${new Set(values).size} values is taken`);
    const i = this.rng.int(0, this.remaining.length - 1);
    const value = this.remaining[i] as string;
    this.remaining[i] = this.remaining[this.remaining.length - 1] as string;
    this.remaining.pop();
    return value;
  }

  /** `name 2`, `name 3`, … from the drawn base, never a suffix on a suffix. */
  private suffixed(base: string): string {
    let i = this.nextSuffix.get(base) ?? 2;
    while (this.seen.has(`${base} ${i}`)) i++;
    this.nextSuffix.set(base, i + 1);
    return `${base} ${i}`;
  }

  /**
   * The next free value after `value` in the type's order, wrapping inside the hints' bounds
   * so a unique number or date never leaves its range.
   */
  private following(value: Scalar): Scalar {
    const type = this.attribute.type;
    const step = (units: number, lo: number, hi: number): number => (units >= hi ? lo : units + 1);
    switch (type.kind) {
      case 'integer':
      case 'bigint': {
        const [lo, hi] = integerBounds(this.attribute);
        let v = value as number;
        do v = step(v, lo, hi);
        while (this.seen.has(v));
        return v;
      }
      case 'numeric': {
        const [lo, hi] = numericUnits(this.attribute);
        const factor = 10 ** type.scale;
        let units = Math.round(Number(value) * factor);
        let text: string;
        do {
          units = step(units, lo, hi);
          text = (units / factor).toFixed(type.scale);
        } while (this.seen.has(text));
        return text;
      }
      case 'date': {
        const [lo, hi] = dateBounds(this.attribute);
        let days = Math.round((Date.parse(`${String(value)}T00:00:00Z`) - lo) / DAY_MS);
        const last = Math.floor((hi - lo) / DAY_MS);
        let text: string;
        do {
          days = step(days, 0, last);
          text = formatDate(lo + days * DAY_MS);
        } while (this.seen.has(text));
        return text;
      }
      case 'timestamptz':
      case 'timestamp': {
        const [lo, hi] = timestampBounds(this.attribute);
        let seconds = Math.round((Date.parse(`${String(value).replace(' ', 'T').replace(/\+00$/, '')}Z`) - lo) / 1000);
        const last = Math.floor((hi - lo) / 1000);
        let text: string;
        do {
          seconds = step(seconds, 0, last);
          text = timestampText(type.kind, lo + seconds * 1000);
        } while (this.seen.has(text));
        return text;
      }
      default:
        return this.suffixed(String(value));
    }
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
        const [lo, hi] = integerBounds(this.attribute);
        const v = rng.int(lo, hi);
        this.remember(v);
        return v;
      }
      case 'numeric': {
        if (this.previous.length > 0 && rng.chance(this.rates.tieRate)) return rng.pick(this.previous);
        const [lo, hi] = numericUnits(this.attribute);
        const factor = 10 ** type.scale;
        const units = rng.int(lo, hi);
        const v = (units / factor).toFixed(type.scale);
        this.remember(v);
        return v;
      }
      case 'boolean':
        return rng.chance(0.5);
      case 'enum':
        return rng.pick(type.values);
      case 'date': {
        const [lo, hi] = dateBounds(this.attribute);
        if (this.previous.length > 0 && rng.chance(this.rates.tieRate)) return rng.pick(this.previous);
        const v = formatDate(lo + rng.int(0, Math.floor((hi - lo) / DAY_MS)) * DAY_MS);
        this.remember(v);
        return v;
      }
      case 'timestamptz':
      case 'timestamp': {
        const [lo, hi] = timestampBounds(this.attribute);
        if (this.previous.length > 0 && rng.chance(this.rates.tieRate)) return rng.pick(this.previous);
        const v = timestampText(type.kind, lo + rng.int(0, Math.floor((hi - lo) / 1000)) * 1000);
        this.remember(v);
        return v;
      }
      case 'text': {
        if (this.rates.oddTexts.length > 0 && rng.chance(this.rates.oddTextRate))
          return this.fit(rng.pick(this.rates.oddTexts));
        if (hints?.pool && hints.pool.length > 0) return this.fit(rng.pick(hints.pool));
        if (this.fakerMethod) return this.fit(String(this.fakerMethod()));
        return this.fit(this.faker.lorem.words(rng.int(1, 3)));
      }
    }
  }

  /**
   * Text cut to the length its column in the source allows (`character varying(10)`), so
   * the native variant holds every generated value; a model without storage is unchanged.
   */
  private fit(text: string): string {
    const sized = /^(?:character varying|varchar|character|char)\((\d+)\)$/iu.exec(
      this.attribute.storage?.sqlType ?? '',
    );
    if (!sized) return text;
    const letters = [...text];
    return letters.length > Number(sized[1]) ? letters.slice(0, Number(sized[1])).join('').trimEnd() : text;
  }

  private remember(v: Scalar): void {
    if (this.previous.length < 64) this.previous.push(v);
  }
}
