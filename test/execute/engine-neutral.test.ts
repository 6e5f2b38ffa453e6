/**
 * The cross-engine comparison: one value on either side of a half in its tenth digit is one
 * answer (PostgreSQL's exact numeric average beside SQLite's REAL, whose binary fraction
 * falls just below it), and nothing further apart is.
 */
import { describe, expect, it } from 'vitest';
import { neutralResult, neutralValue, sameAnswer } from '../../generator/execute/engine-neutral.ts';

const result = (...rows: (string | null)[][]) => neutralResult({ columns: [], rows }, true);

describe('sameAnswer', () => {
  it('takes a tie in the tenth digit, split by the two engines, as one answer', () => {
    // 1294.8264715 exactly (PostgreSQL) and the REAL just below it (SQLite): rounded to ten
    // digits they fall on either side.
    const postgres = result(['11', '1294.8264715']);
    const sqlite = result(['11', '1294.8264714999998']);
    expect(postgres.hash).not.toBe(sqlite.hash);
    expect(neutralValue('1294.8264715')).toBe('1294.826472');
    expect(neutralValue('1294.8264714999998')).toBe('1294.826471');
    // And at the top of the range a unit of the tenth digit spans (1.000000001 against 1).
    expect(sameAnswer(result(['1.0000000005']), result(['1.0000000004999998']))).toBe(true);
    expect(sameAnswer(postgres, sqlite)).toBe(true);
    expect(sameAnswer(sqlite, postgres)).toBe(true);
  });

  it('tells apart answers that differ past the tenth digit, in text, rows, order or NULLs', () => {
    expect(sameAnswer(result(['1.15']), result(['1.1']))).toBe(false);
    expect(sameAnswer(result(['1294.826471']), result(['1294.826473']))).toBe(false);
    expect(sameAnswer(result(['1.0000000001']), result(['1.0000000041']))).toBe(false);
    expect(sameAnswer(result(['a', '1']), result(['b', '1']))).toBe(false);
    expect(sameAnswer(result(['1']), result(['1'], ['1']))).toBe(false);
    expect(sameAnswer(result(['1'], ['2']), result(['2'], ['1']))).toBe(false);
    expect(sameAnswer(result([null]), result(['0']))).toBe(false);
    // Whole numbers are exact in both engines: a count, a sum or a code one apart is another answer.
    expect(sameAnswer(result(['1000000000']), result(['1000000001']))).toBe(false);
    expect(sameAnswer(result(['5551234567']), result(['5551234568']))).toBe(false);
    // A text that reads as a number only to Number() is compared as text.
    expect(sameAnswer(result(['0x10']), result(['16']))).toBe(false);
    expect(sameAnswer(result(['1', 'x']), result(['1', 'x']))).toBe(true);
  });
});
