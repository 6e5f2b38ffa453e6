/**
 * typed-value and round-limit, as the filler proposes them: bounds rounded to what a person
 * types (30, 150, 1,000, 4,500), values matched with `=` as stored when a person types them so
 * (37 items, a price of 25), date bounds on the first day of a month, LIMITs from a short list.
 */

/** LIMITs a person asks for. */
export const ROUND_LIMITS: readonly number[] = [1, 3, 5, 10, 20, 50, 100];

/**
 * A bound rounded as a person types one: a whole number below 20 (or two significant digits
 * below 10: 4.5, 0.54); from 20 on, one significant digit when that is within a tenth of it
 * (970 → 1,000, 4,300 → 4,000, 31 → 30), else the nearest multiple of five in the second
 * digit (1,300 → 1,500, 37 → 35). Never 4,300 seconds or $970.
 */
export function roundThreshold(n: number): number {
  if (!Number.isFinite(n) || n === 0) return n;
  const a = Math.abs(n);
  if (a < 20) {
    if (a >= 10 || Number.isInteger(n)) return Math.round(n);
    const scale = 10 ** (1 - Math.floor(Math.log10(a)));
    return Math.round(n * scale) / scale;
  }
  const unit = 10 ** Math.floor(Math.log10(a));
  const one = Math.round(n / unit) * unit;
  return Math.abs(one - n) <= a / 10 ? one : finerThreshold(n);
}

/** The finer of the bounds a person types: below 20 as `roundThreshold`, from 20 on the nearest multiple of five in the second digit (1,300 → 1,500, 117 → 115). */
export function finerThreshold(n: number): number {
  const a = Math.abs(n);
  if (!Number.isFinite(n) || a < 20) return roundThreshold(n);
  const step = 10 ** Math.floor(Math.log10(a)) / 2;
  return Math.round(n / step) * step;
}

/** Whether a number is a value a person types after `=`: whole below 100, else two significant digits. */
/** Whether a number is one a person types as it is. */
export function isTyped(n: number): boolean {
  if (!Number.isFinite(n)) return false;
  if (Number.isInteger(n) && Math.abs(n) < 100) return true;
  if (n === 0) return true;
  const scale = 10 ** (Math.floor(Math.log10(Math.abs(n))) - 1);
  return Math.round(n / scale) * scale === n;
}

/** The first day of the month of a date or time value ('2023-04-17 10:02:11+00' → '2023-04-01'). */
export function monthStart(v: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-\d{2}/u.exec(v);
  return m ? `${m[1]}-${m[2]}-01` : undefined;
}
