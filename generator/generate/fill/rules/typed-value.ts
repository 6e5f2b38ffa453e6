/**
 * typed-value and round-limit, as the filler proposes them: thresholds rounded to what a
 * person types (one or two significant digits, or a whole number below 100), date bounds on
 * the first day of a month, LIMITs from a short list.
 */

/** LIMITs a person asks for. */
export const ROUND_LIMITS: readonly number[] = [1, 3, 5, 10, 20, 50, 100];

/** A number rounded as a person types a threshold: whole below 100, else two significant digits. */
export function roundThreshold(n: number): number {
  if (!Number.isFinite(n) || n === 0) return n;
  if (Math.abs(n) < 100) {
    if (Math.abs(n) >= 10 || Number.isInteger(n)) return Math.round(n);
    const scale = 10 ** (1 - Math.floor(Math.log10(Math.abs(n))));
    return Math.round(n * scale) / scale;
  }
  const scale = 10 ** (Math.floor(Math.log10(Math.abs(n))) - 1);
  return Math.round(n / scale) * scale;
}

/** Whether a number is one a person types as it is. */
export function isTyped(n: number): boolean {
  return roundThreshold(n) === n;
}

/** The first day of the month of a date or time value ('2023-04-17 10:02:11+00' → '2023-04-01'). */
export function monthStart(v: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-\d{2}/u.exec(v);
  return m ? `${m[1]}-${m[2]}-01` : undefined;
}
