import type { ScalarLiteral } from '../../query/conceptual-query.ts';

/**
 * Values as people write them in a question: numbers with thousands separators, dates as
 * "June 2022" or "March 5, 2022", times of day with their zone. The text keeps the exact
 * value (a reader can still type the literal), only its spelling changes.
 */

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** 180675 → "180,675"; 4897.57 → "4,897.57"; a year-like value stays "2022" when `plain`. */
export function numberText(value: number | string, plain = false): string {
  const text = String(value);
  if (plain || !/^-?\d+(\.\d+)?$/u.test(text)) return text;
  const [whole, fraction] = text.split('.');
  const sign = whole!.startsWith('-') ? '-' : '';
  const digits = sign ? whole!.slice(1) : whole!;
  const grouped = digits.length > 4 ? digits.replace(/\B(?=(\d{3})+(?!\d))/gu, ',') : digits;
  return `${sign}${grouped}${fraction !== undefined ? `.${fraction}` : ''}`;
}

/** A date or timestamp literal, parsed: undefined when the text is not one. */
export function parseMoment(text: string): { y: number; m: number; d: number; time?: string } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?:\+00(?::00)?|Z)?)?$/u.exec(text);
  if (!m) return undefined;
  const time = m[4] && !/^00:00(:00)?$/u.test(m[4]) ? m[4] : undefined;
  return { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]), ...(time ? { time } : {}) };
}

/**
 * A date the way a question says it before `<` or from `>=` (a boundary): the first of a
 * month is the month ("before June 2022"), the first of January the year ("before 2022").
 * Any other date is spelled out ("March 5, 2022"); a time of day keeps its clock and zone.
 */
export function momentText(text: string, boundary: boolean): string {
  const t = parseMoment(text);
  if (!t) return `"${text}"`;
  const month = MONTHS[t.m - 1] as string;
  if (t.time) return `${month} ${t.d}, ${t.y} at ${t.time.slice(0, 8)} UTC`;
  if (boundary && t.d === 1 && t.m === 1) return String(t.y);
  if (boundary && t.d === 1) return `${month} ${t.y}`;
  return `${month} ${t.d}, ${t.y}`;
}

/** A text value in double quotes (they often hold apostrophes: "kids' shows"); numbers bare. */
export function valueText(value: ScalarLiteral | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (/^-?\d+(\.\d+)?$/u.test(value) && !/^0\d/u.test(value)) return numberText(value);
  return `"${value}"`;
}

/** A sum of money as people write it: 1400 → "$1,400", 965.3 → "$965.30". */
export function moneyText(value: number): string {
  const cents = Math.round(Math.abs(value) * 100);
  const whole = Math.floor(cents / 100).toLocaleString('en-US');
  const rest = cents % 100;
  return `${value < 0 ? '-' : ''}$${whole}${rest === 0 ? '' : `.${String(rest).padStart(2, '0')}`}`;
}

/** A number in its unit as people say it: dollars as "$1,400", whole hours and minutes of seconds as "2 hours", "90 minutes"; else "6,700 seconds". */
export function quantityText(value: number, unit: string | undefined): string {
  if (unit === 'dollars' || unit === 'USD') return moneyText(value);
  if (unit === 'seconds' && Number.isInteger(value) && value > 0) {
    if (value % 3600 === 0) return `${numberText(value / 3600)} hour${value === 3600 ? '' : 's'}`;
    if (value % 60 === 0 && value >= 120) return `${numberText(value / 60)} minutes`;
  }
  return `${numberText(value)}${unit ? ` ${unit}` : ''}`;
}

/**
 * A text value inside a sentence: bare when it is one plain word ("twitch", "Eli73",
 * "4.8.0"), in double quotes when spaces, underscores or other signs would blur where it
 * ends ("Anne of Green Gables", "Ola_Lesch0"). The text is the exact value either way.
 */
export function inlineText(value: string): string {
  return /^[\p{L}\p{N}][\p{L}\p{N}.@+#-]*$/u.test(value) && !/[.@+#-]$/u.test(value) ? value : `"${value}"`;
}

/** Several text values, all bare or all quoted: one spelling for a list. */
export function inlineTexts(values: readonly string[]): string[] {
  const bare = values.every((v) => inlineText(v) === v);
  return values.map((v) => (bare ? v : `"${v}"`));
}
