import seedrandom from 'seedrandom';

/**
 * The one source of randomness in equisql. Every stage takes an `Rng` and never touches
 * `Math.random` or the clock, so the same seed gives the same bytes.
 *
 * `fork(label)` derives an independent stream from the seed and a label: drawing more
 * values in one stage never shifts the values another stage sees.
 *
 * @example
 * const rng = createRng(42);
 * rng.int(1, 6);             // a die roll, the same every run with seed 42
 * rng.fork('instance').next();
 */
export interface Rng {
  /** The seed string this stream was made from (for forks: parent seed + label). */
  readonly seed: string;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** An index drawn with the given non-negative weights (not all zero). */
  weighted(weights: readonly number[]): number;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** `k` distinct elements in random order (k ≤ items.length). */
  sample<T>(items: readonly T[], k: number): T[];
  /** An independent stream for a sub-task. */
  fork(label: string): Rng;
  /** A 32-bit integer seed for libraries that want one (faker). */
  int32(): number;
}

export function createRng(seed: string | number): Rng {
  const seedText = String(seed);
  const prng = seedrandom.alea(seedText);
  const next = (): number => prng();
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    seed: seedText,
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty array');
      return items[Math.floor(next() * items.length)] as T;
    },
    weighted: (weights) => {
      let total = 0;
      for (const w of weights) total += w;
      if (!(total > 0)) throw new RangeError('weighted pick needs a positive total weight');
      let r = next() * total;
      for (let i = 0; i < weights.length; i++) {
        r -= weights[i] as number;
        if (r < 0) return i;
      }
      return weights.length - 1;
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const copy = items.slice();
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy;
    },
    sample: <T>(items: readonly T[], k: number): T[] => {
      // Partial Fisher–Yates: O(k) draws on a copy.
      const copy = items.slice();
      const n = Math.min(k, copy.length);
      for (let i = 0; i < n; i++) {
        const j = i + Math.floor(next() * (copy.length - i));
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy.slice(0, n);
    },
    fork: (label) => createRng(`${seedText}/${label}`),
    int32: () => Math.floor(next() * 0x7fffffff),
  };
}
