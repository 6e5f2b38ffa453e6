import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection once many rows have been read and dropped. V8 grows its heap
 * lazily while a program allocates fast: a PGlite read that runs until its timeout moves a few
 * hundred thousand rows through the worker in two seconds (about 45 MB of objects, dropped at
 * once), and after a few such reads in an evaluation the heap had grown by 400 MB with 80 MB
 * of it alive. Collecting when that many rows have passed keeps the process near what it
 * holds, for a few milliseconds per hundred thousand rows.
 *
 * @example
 * collectAfterManyRows(); // before a read: collects if the reads since the last one passed the budget
 * rowsDropped(counter.rowCount); // after it
 */
const ROWS_BUDGET = 100_000;
let rowsSince = 0;
let gc: (() => void) | undefined;

/** Counts rows a read moved through this process. */
export function rowsDropped(rows: number): void {
  rowsSince += rows;
}

/** Collects garbage when the rows read since the last collection passed the budget. */
export function collectAfterManyRows(): void {
  if (rowsSince < ROWS_BUDGET) return;
  rowsSince = 0;
  if (gc === undefined) {
    // Node gives `gc` to a context made after the flag is set; the flag changes nothing else.
    // A runtime that does not is left to collect on its own.
    setFlagsFromString('--expose-gc');
    try {
      gc = runInNewContext('gc') as () => void;
    } catch {
      gc = () => {};
    }
  }
  gc();
}
