/**
 * Answers a generation run has already had from the database, kept to be given again: the
 * run only reads (every query is read-only, and no build swaps the databases while a run
 * holds its directory), so a query asked again in the same schema gets the same result, and
 * asking costs a round trip for nothing. Candidates ask again often: a common skeleton fills
 * to the same query time after time, and its probes, planner estimates and checks are the
 * same queries each time (a third of a run's queries).
 *
 * Bounded by the values held (rows × columns), the oldest answer dropped first; failures are
 * not kept (a timeout says as much about the load as about the query).
 */
import type { TextResult } from '../database/database.ts';

/** Values (rows × columns, at least one a result) held across all answers, by default. */
export const MEMO_VALUES = 400_000;

export class ResultMemo<T> {
  private readonly answers = new Map<string, { readonly value: T; readonly size: number }>();
  private held = 0;

  constructor(
    private readonly sizeOf: (value: T) => number,
    private readonly limit = MEMO_VALUES,
  ) {}

  /** The answer kept for `key`, now the most recently used, or undefined. */
  get(key: string): T | undefined {
    const hit = this.answers.get(key);
    if (!hit) return undefined;
    this.answers.delete(key);
    this.answers.set(key, hit);
    return hit.value;
  }

  /** Keeps an answer, dropping the least recently used ones beyond the bound (one larger than the bound is not kept). */
  set(key: string, value: T): void {
    const size = Math.max(1, this.sizeOf(value));
    if (size > this.limit) return;
    const old = this.answers.get(key);
    if (old) {
      this.answers.delete(key);
      this.held -= old.size;
    }
    this.answers.set(key, { value, size });
    this.held += size;
    for (const [k, a] of this.answers) {
      if (this.held <= this.limit) break;
      this.answers.delete(k);
      this.held -= a.size;
    }
  }
}

/** The values a result holds, as the memo counts them. */
export const resultValues = (r: TextResult): number => r.rows.length * Math.max(1, r.columns.length);

/** The key of a query in a schema (a NUL cannot occur in either). */
export const queryKey = (pgSchema: string, text: string): string => `${pgSchema}\u0000${text}`;
