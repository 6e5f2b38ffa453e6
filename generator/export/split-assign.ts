/**
 * Leak-free splits. Every split kind assigns whole groups, so no equivalence group (and so
 * no question, whose text belongs to one group) is in two splits:
 *
 * - `random`: groups, shuffled by the seed, cut by the ratios;
 * - `skeleton`: skeletons, shuffled and cut, each group following its skeleton (a query
 *   split: a test skeleton never appears in train);
 * - `variant`: variants and groups are each cut by the ratios, and a row is kept only where
 *   its group and its variant fall in the same split — the test rows are new questions on
 *   schemas train never saw; the crossed rows are left out, so the group is never cut;
 * - `domain`: domains shuffled and cut (Spider's held-out databases); needs groups of at
 *   least as many domains as there are non-empty ratios;
 * - `database`: databases (`db_id`) shuffled and cut, so each database is in exactly one
 *   split; needs as many databases as there are non-empty ratios (a corpus run's).
 */
import { ConfigError } from '../common/errors.ts';
import { createRng } from '../common/rng.ts';

export const SPLIT_KINDS = ['random', 'skeleton', 'variant', 'domain', 'database'] as const;
export type SplitKind = (typeof SPLIT_KINDS)[number];

export const SPLIT_NAMES = ['train', 'validation', 'test'] as const;
export type SplitName = (typeof SPLIT_NAMES)[number];

export type SplitRatios = Readonly<Record<SplitName, number>>;
export const DEFAULT_RATIOS: SplitRatios = { train: 0.8, validation: 0.1, test: 0.1 };

/** What a split decides on: the group's id, skeleton, domain and database. */
export interface SplitUnit {
  readonly group_id: string;
  readonly skeleton: string;
  readonly domain: string;
  readonly db_id: string;
}

/** Where each group goes, and for the `variant` kind where each variant goes. */
export interface SplitPlan {
  readonly kind: SplitKind;
  readonly groups: ReadonlyMap<string, SplitName>;
  /** Only for `variant`: the split each variant belongs to. */
  readonly variants?: ReadonlyMap<string, SplitName>;
}

/**
 * `train=0.8,validation=0.1,test=0.1` → ratios (missing names are 0, the sum must be
 * positive); a ConfigError naming the flag otherwise.
 */
export function parseRatios(text: string, where: string): SplitRatios {
  const out: Record<SplitName, number> = { train: 0, validation: 0, test: 0 };
  const given = new Set<string>();
  for (const part of text.split(',')) {
    const m = /^(train|validation|test)=(\d+(?:\.\d+)?)$/u.exec(part.trim());
    if (!m) throw new ConfigError(`${where} expects train=R,validation=R,test=R, got "${part}"`);
    // A split named twice has no one ratio: the later would silently win.
    if (given.has(m[1] as string)) throw new ConfigError(`${where}: ${m[1]} is given twice in "${text.slice(0, 80)}"`);
    given.add(m[1] as string);
    out[m[1] as SplitName] = Number(m[2]);
  }
  if (!(out.train + out.validation + out.test > 0)) throw new ConfigError(`${where}: ratios must have a positive sum`);
  return out;
}

/**
 * Cuts `n` shuffled units by the ratios: largest remainders, and every split with a positive
 * ratio gets at least one unit while there are units to give (a test split of zero groups
 * would make every leak check pass vacuously).
 */
function cut(n: number, ratios: SplitRatios): SplitName[] {
  const total = SPLIT_NAMES.reduce((a, s) => a + ratios[s], 0);
  const wanted = SPLIT_NAMES.map((s) => (n * ratios[s]) / total);
  const sizes = wanted.map(Math.floor);
  const order = SPLIT_NAMES.map((_, i) => i).sort(
    (a, b) => (wanted[b] as number) - (sizes[b] as number) - ((wanted[a] as number) - (sizes[a] as number)) || a - b,
  );
  let left = n - sizes.reduce((a, b) => a + b, 0);
  for (const i of order) {
    if (left === 0) break;
    sizes[i] = (sizes[i] as number) + 1;
    left--;
  }
  // Lift empty positive splits, taking from the largest.
  for (let i = 0; i < SPLIT_NAMES.length; i++) {
    if (sizes[i] !== 0 || ratios[SPLIT_NAMES[i] as SplitName] === 0) continue;
    const largest = sizes.indexOf(Math.max(...sizes));
    if ((sizes[largest] as number) > 1) {
      (sizes[largest] as number) -= 1;
      sizes[i] = 1;
    }
  }
  return SPLIT_NAMES.flatMap((s, i) => Array<SplitName>(sizes[i] as number).fill(s));
}

function assign(keys: readonly string[], ratios: SplitRatios, seed: string): Map<string, SplitName> {
  const unique = [...new Set(keys)].sort();
  const shuffled = createRng(seed).shuffle(unique);
  const names = cut(shuffled.length, ratios);
  return new Map(shuffled.map((k, i) => [k, names[i] as SplitName]));
}

/**
 * Decides the split of every group (and, for `variant`, of every variant) from the seed.
 * The same units, kind, ratios and seed give the same plan, whatever order units come in.
 * `links` lists sets of groups that must share a split (groups with a question or SQL text
 * in common), so no text is in two splits even where two groups happen to share one.
 *
 * @example
 * planSplits(units, ['full_cti', 'full_sti'], 'random', DEFAULT_RATIOS, 1).groups.get(id); // 'train'
 */
export function planSplits(
  units: readonly SplitUnit[],
  variants: readonly string[],
  kind: SplitKind,
  ratios: SplitRatios,
  seed: string | number,
  links: readonly (readonly string[])[] = [],
): SplitPlan {
  const base = `${String(seed)}/split/${kind}`;
  const byGroup = (key: (u: SplitUnit) => string): Map<string, SplitName> => {
    // Linked groups (the same question or SQL text) must share a split: their units are
    // joined, and a joined set of units is cut as one, named by its smallest key.
    const parent = new Map<string, string>(units.map((u) => [key(u), key(u)]));
    const root = (k: string): string => {
      let r = k;
      while (parent.get(r) !== r) r = parent.get(r) as string;
      parent.set(k, r);
      return r;
    };
    const unitOf = new Map(units.map((u) => [u.group_id, key(u)]));
    for (const link of links) {
      const keys = link.map((g) => unitOf.get(g)).filter((k): k is string => k !== undefined);
      for (const k of keys.slice(1)) {
        const [a, b] = [root(keys[0] as string), root(k)];
        if (a !== b) parent.set(a < b ? b : a, a < b ? a : b);
      }
    }
    const plan = assign(
      units.map((u) => root(key(u))),
      ratios,
      base,
    );
    return new Map(units.map((u) => [u.group_id, plan.get(root(key(u))) as SplitName]));
  };
  switch (kind) {
    case 'random':
      return { kind, groups: byGroup((u) => u.group_id) };
    case 'skeleton':
      return { kind, groups: byGroup((u) => u.skeleton) };
    case 'domain': {
      const domains = new Set(units.map((u) => u.domain));
      const needed = SPLIT_NAMES.filter((s) => ratios[s] > 0).length;
      if (domains.size < needed)
        throw new ConfigError(
          `export: --split domain needs groups of at least ${needed} domains (one per non-empty split), got ${domains.size} (${[...domains].join(', ')}); add datasets with --include DIR`,
        );
      return { kind, groups: byGroup((u) => u.domain) };
    }
    case 'database':
      checkDatabaseCount('export', [...new Set(units.map((u) => u.db_id))].sort(), ratios);
      return { kind, groups: byGroup((u) => u.db_id) };
    case 'variant': {
      const needed = SPLIT_NAMES.filter((s) => ratios[s] > 0).length;
      if (new Set(variants).size < needed)
        throw new ConfigError(
          `export: --split variant needs at least ${needed} variants (one per non-empty split), got ${variants.length}`,
        );
      return { kind, groups: byGroup((u) => u.group_id), variants: assign(variants, ratios, `${base}/variants`) };
    }
  }
}

/**
 * The `database` split puts each database in one split, so it needs a database per non-empty
 * split; with fewer it is refused (a split left empty would make its leak checks pass
 * vacuously). `generate` asks before anything is built.
 */
export function checkDatabaseCount(command: string, databases: readonly string[], ratios: SplitRatios): void {
  const needed = SPLIT_NAMES.filter((s) => ratios[s] > 0).length;
  if (databases.length < needed)
    throw new ConfigError(
      `${command}: --split database needs at least ${needed} databases (one per non-empty split), got ${databases.length} (${databases.join(', ')}); generate a corpus (generate --corpus) or give --ratios with fewer splits`,
    );
}
