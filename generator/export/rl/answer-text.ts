/**
 * An answer's values as text, as the RL reward (`rewards/equisql_reward.py`) writes them from
 * Python's `sqlite3`: integers in decimal, reals as Python's `repr` prints them, text as it
 * is, blobs as `\x` and their hex (PostgreSQL's bytea form), NULL as null. The gold answers
 * the export precomputes and the answers the reward reads from a model's SQL must print
 * alike, or a right answer would be scored wrong.
 */

/**
 * A double as Python's `repr(float)` prints it: the shortest digits that read back to the
 * same number (JavaScript finds the same digits), in fixed notation for exponents from -4
 * to 15 and in scientific notation, with a sign and two digits at least, outside.
 *
 * @example pythonFloatText(3)       // '3.0'
 * @example pythonFloatText(0.00001) // '1e-05'
 * @example pythonFloatText(1e16)    // '1e+16'
 */
export function pythonFloatText(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponent = '0'] = x.toExponential().split('e');
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 16) {
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${body}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.length <= exp + 1 ? digits.padEnd(exp + 1, '0') : digits.slice(0, exp + 1);
  const fraction = digits.length <= exp + 1 ? '0' : digits.slice(exp + 1);
  return `${sign}${whole}.${fraction}`;
}

/** One SQLite value (read with safe integers: INTEGER as bigint, REAL as number) as the reward prints it. */
export function sqliteValueText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return pythonFloatText(value);
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  return String(value);
}
