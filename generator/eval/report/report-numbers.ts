/** How the report pages print numbers: fixed digits, so the same summary prints the same bytes. */

/**
 * A number as the report prints it: integers as they are, other values with `digits`
 * decimals, so the same summary always prints the same bytes.
 *
 * @example
 * formatNumber(12);        // '12'
 * formatNumber(0.8333, 3); // '0.833'
 */
export function formatNumber(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return '–';
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/**
 * A share in [0, 1] as a percentage with one decimal.
 *
 * @example
 * formatPercent(0.8333); // '83.3%'
 */
export function formatPercent(share: number): string {
  if (!Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(1)}%`;
}
