/**
 * The collection after many rows: rows read and dropped past the budget are given back at the
 * next read, not whenever V8 next decides to grow or collect.
 */
import { describe, expect, it } from 'vitest';
import { collectAfterManyRows, rowsDropped } from '../../generator/common/garbage.ts';

const MB = 1024 * 1024;

/** Rows as a read holds them: arrays of short strings, dropped when the function returns; the heap while held. */
function readAndDrop(rows: number): { rows: number; heldHeap: number } {
  const kept: (string | null)[][] = [];
  for (let i = 0; i < rows; i++) kept.push([`row ${i}`, String(i * 7), null]);
  return { rows: kept.length, heldHeap: process.memoryUsage().heapUsed };
}

describe('collectAfterManyRows', () => {
  it('gives back the heap of rows dropped past the budget', () => {
    const before = process.memoryUsage().heapUsed;
    const read = readAndDrop(1_000_000);
    rowsDropped(read.rows);
    collectAfterManyRows();
    const after = process.memoryUsage().heapUsed;
    // A million rows of three values hold well over 50 MB; dropped, they stay until a full collection.
    expect(read.heldHeap - before).toBeGreaterThan(50 * MB);
    expect(after - before).toBeLessThan(20 * MB);
  });
});
