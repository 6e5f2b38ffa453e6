import type { TextResult } from '../database/database.ts';
import { arrayElements } from './array-text.ts';
import { normalizeResult, type NormalizedResult } from './run-query.ts';

/** A number as PostgreSQL and SQLite print one. */
const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/iu;

/**
 * One value as both engines' answers are compared: PostgreSQL and SQLite print the same
 * fact differently, so each side is brought to one form before the usual normalization.
 *
 * - a number to 10 significant digits, without trailing zeros (`12.50` and `12.5`; PostgreSQL's
 *   exact numeric average and SQLite's REAL one)
 * - a boolean as 1 or 0 (PostgreSQL's `t`, SQLite's `1`)
 * - a UTC timestamp without `+00`
 * - a set (PostgreSQL's `{a,b}`, SQLite's JSON `["a","b"]`) as the sorted JSON array of its
 *   element texts
 *
 * A text that is exactly `t` or `f`, or that looks like a number, reads the same way on both
 * sides, so it cannot make two answers agree that differ.
 */
export function neutralValue(value: string | null): string | null {
  if (value === null) return null;
  if (value === 't' || value === 'true') return '1';
  if (value === 'f' || value === 'false') return '0';
  if (NUMBER.test(value)) {
    if (/^-?\d+$/u.test(value) && value.replace('-', '').length <= 15) return String(Number(value));
    const n = Number(value);
    return Number.isFinite(n) ? String(Number(n.toPrecision(10))) : value;
  }
  const stamp = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?)\+00$/u.exec(value);
  if (stamp) return stamp[1] as string;
  if (value.startsWith('{')) {
    const elements = arrayElements(value);
    if (elements)
      return JSON.stringify(
        elements
          .map((e) =>
            neutralElement(e.startsWith('"') ? e.slice(1, -1).replace(/\\(.)/gu, '$1') : e === 'NULL' ? null : e),
          )
          .sort(),
      );
  }
  if (value.startsWith('[')) {
    try {
      const elements = JSON.parse(value) as unknown;
      if (Array.isArray(elements))
        return JSON.stringify(
          elements
            .map((e) => neutralElement(e === null ? null : typeof e === 'boolean' ? (e ? 't' : 'f') : String(e)))
            .sort(),
        );
    } catch {
      // not JSON: a text that starts with a bracket
    }
  }
  return value;
}

function neutralElement(e: string | null): string | null {
  return neutralValue(e);
}

/** A result normalized for comparison across engines (see `neutralValue`). */
export function neutralResult(result: TextResult, ordered: boolean): NormalizedResult {
  return normalizeResult({ columns: result.columns, rows: result.rows.map((row) => row.map(neutralValue)) }, ordered);
}

/**
 * Whether two engines' neutral results are one answer: the same hash, or the same rows where
 * two numbers, at least one of them with a fraction, differ by at most a unit or so of the
 * tenth significant digit. That is what rounding to ten digits leaves of one value on either
 * side of a half (PostgreSQL's exact average 1294.82647065, SQLite's REAL just below it). Whole
 * numbers are never near: both engines count and sum integers exactly.
 */
export function sameAnswer(a: NormalizedResult, b: NormalizedResult): boolean {
  if (a.hash === b.hash) return true;
  if (a.rows.length !== b.rows.length) return false;
  return a.rows.every((row, i) => {
    const other = b.rows[i] as readonly (string | null)[];
    return row.length === other.length && row.every((v, j) => v === other[j] || nearlyEqual(v, other[j] ?? null));
  });
}

function nearlyEqual(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return false;
  if (!NUMBER.test(a) || !NUMBER.test(b) || !(/[.e]/iu.test(a) || /[.e]/iu.test(b))) return false;
  const x = Number(a);
  const y = Number(b);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  return Math.abs(x - y) <= 1.000001e-9 * Math.max(Math.abs(x), Math.abs(y));
}
