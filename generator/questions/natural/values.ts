import type { ScalarLiteral } from '../../query/conceptual-query.ts';

/**
 * Values as people write them in a question: numbers with thousands separators, dates as
 * "June 2022" or "March 5, 2022", times of day with their zone. The text keeps the exact
 * value (a reader can still type the literal), only its spelling changes.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

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
