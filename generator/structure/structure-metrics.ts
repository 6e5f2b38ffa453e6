/**
 * SQLStructEval's structural measures (Section 3.3), over generations grouped by input and
 * perturbation.
 *
 * For one input x (one input id under one perturbation) with N generations, M of which
 * parse, and K distinct canonical structures with frequencies p_k = n_k / M:
 *   distinct  Div(x)  = K
 *   majority  Cons(x) = max_k p_k
 *   entropy   H(x)    = −Σ p_k log2 p_k
 *   gold      Gold(x) = share of the M parsed generations whose structure is the gold one
 * For an input id with original x(0) and perturbations x(1..T), with s*_t the majority
 * structure of x(t):
 *   agreement   Cons_para = 2 / ((T+1)T) · Σ_{t1<t2} 1[s*_t1 = s*_t2]
 *   sensitivity Sens      = 1/T · Σ_t 1[s*_t ≠ s*_0]
 * and, over the whole file, the sensitive fraction: the share of input ids with Sens > 0.
 * The pooled share of perturbations whose majority differs from their original's is
 * reported too, as `changedPerturbationShare`.
 *
 * A group where nothing parses has no structures: its distinct count, majority and entropy
 * are all `null`, and it agrees with no group. An input id without an original (perturbation
 * id `0` or `original`) has agreement but no sensitivity, and is listed in
 * `inputsWithoutOriginal` rather than compared against an arbitrary group.
 * Majority ties go to the smallest structure string, so results never depend on row order.
 */

/** One generation: its structure (canonical string or hash), or `null` if it did not parse. */
export interface GenerationRow {
  readonly inputId: string;
  readonly perturbationId: string;
  readonly structure: string | null;
}

export interface GroupMetrics {
  readonly inputId: string;
  readonly perturbationId: string;
  readonly generations: number;
  readonly parsed: number;
  /** `null` when no generation parsed, like majority and entropy. */
  readonly distinct: number | null;
  readonly majority: number | null;
  readonly entropy: number | null;
  readonly gold: number | null;
  readonly majorityStructure: string | null;
}

export interface InputMetrics {
  readonly inputId: string;
  /** The original's perturbation id; `null` when the input id has none. */
  readonly original: string | null;
  /** T: the groups besides the original (all groups but one when there is no original). */
  readonly perturbations: number;
  /** `null` without perturbations (T = 0). */
  readonly agreement: number | null;
  /** `null` without perturbations or without an original. */
  readonly sensitivity: number | null;
}

export interface StructureReport {
  readonly generations: number;
  readonly parsed: number;
  readonly groups: number;
  readonly inputs: number;
  /** Means over groups (those with a value). */
  readonly distinct: number | null;
  readonly majority: number | null;
  readonly entropy: number | null;
  readonly gold: number | null;
  /** Means over input ids that have perturbations. */
  readonly agreement: number | null;
  readonly sensitivity: number | null;
  /** Share of input ids with a sensitivity whose sensitivity is above zero (the paper's). */
  readonly sensitiveFraction: number | null;
  /** Share of all perturbations, pooled over input ids, whose majority left the original's. */
  readonly changedPerturbationShare: number | null;
  /** Input ids with no perturbation id marking the original; they have no sensitivity. */
  readonly inputsWithoutOriginal: readonly string[];
  readonly perGroup: readonly GroupMetrics[];
  readonly perInput: readonly InputMetrics[];
}

export interface MetricsOptions {
  /** Gold structure per input id (`null` for a gold query that does not parse). */
  readonly gold?: ReadonlyMap<string, string | null>;
  /** Perturbation ids that mark the original input (default `0` and `original`). */
  readonly originalIds?: readonly string[];
}

function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length;
}

/** The measures of one group of generations. */
export function groupMetrics(
  inputId: string,
  perturbationId: string,
  structures: readonly (string | null)[],
  gold?: string | null,
): GroupMetrics {
  const counts = new Map<string, number>();
  for (const s of structures) if (s !== null) counts.set(s, (counts.get(s) ?? 0) + 1);
  const parsed = [...counts.values()].reduce((a, b) => a + b, 0);
  let majorityStructure: string | null = null;
  let best = 0;
  for (const [s, n] of counts) {
    if (n > best || (n === best && majorityStructure !== null && s < majorityStructure)) {
      best = n;
      majorityStructure = s;
    }
  }
  let entropy = 0;
  for (const n of counts.values()) {
    const p = n / parsed;
    entropy -= p * Math.log2(p);
  }
  return {
    inputId,
    perturbationId,
    generations: structures.length,
    parsed,
    distinct: parsed === 0 ? null : counts.size,
    majority: parsed === 0 ? null : best / parsed,
    entropy: parsed === 0 ? null : entropy === 0 ? 0 : entropy,
    gold: gold === undefined || gold === null || parsed === 0 ? null : (counts.get(gold) ?? 0) / parsed,
    majorityStructure,
  };
}

/**
 * All measures over a file of generations.
 *
 * @example
 * computeStructureMetrics([
 *   { inputId: 'q1', perturbationId: '0', structure: 'a' },
 *   { inputId: 'q1', perturbationId: '0', structure: 'b' },
 *   { inputId: 'q1', perturbationId: '1', structure: 'a' },
 * ]).sensitivity; // 0: both majorities are 'a' ('a' < 'b' breaks the tie)
 */
export function computeStructureMetrics(rows: readonly GenerationRow[], options: MetricsOptions = {}): StructureReport {
  const originals = new Set(options.originalIds ?? ['0', 'original']);
  const byInput = new Map<string, Map<string, (string | null)[]>>();
  for (const row of rows) {
    const perturbations = byInput.get(row.inputId) ?? new Map<string, (string | null)[]>();
    byInput.set(row.inputId, perturbations);
    const list = perturbations.get(row.perturbationId) ?? [];
    perturbations.set(row.perturbationId, list);
    list.push(row.structure);
  }
  const perGroup: GroupMetrics[] = [];
  const perInput: InputMetrics[] = [];
  let perturbed = 0;
  let changedTotal = 0;
  const withoutOriginal: string[] = [];
  for (const [inputId, perturbations] of byInput) {
    const groups = [...perturbations].map(([pid, structures]) =>
      groupMetrics(inputId, pid, structures, options.gold?.get(inputId)),
    );
    perGroup.push(...groups);
    const original = groups.find((g) => originals.has(g.perturbationId));
    if (!original) withoutOriginal.push(inputId);
    const same = (a: GroupMetrics, b: GroupMetrics): boolean =>
      a.majorityStructure !== null && a.majorityStructure === b.majorityStructure;
    const T = groups.length - 1;
    if (T === 0) {
      perInput.push({
        inputId,
        original: original?.perturbationId ?? null,
        perturbations: 0,
        agreement: null,
        sensitivity: null,
      });
      continue;
    }
    let agreeing = 0;
    for (let i = 0; i < groups.length; i++)
      for (let j = i + 1; j < groups.length; j++)
        if (same(groups[i] as GroupMetrics, groups[j] as GroupMetrics)) agreeing++;
    let sensitivity: number | null = null;
    if (original) {
      const changed = groups.filter((g) => g !== original && !same(g, original)).length;
      perturbed += T;
      changedTotal += changed;
      sensitivity = changed / T;
    }
    perInput.push({
      inputId,
      original: original?.perturbationId ?? null,
      perturbations: T,
      agreement: (2 * agreeing) / ((T + 1) * T),
      sensitivity,
    });
  }
  return {
    generations: rows.length,
    parsed: rows.filter((r) => r.structure !== null).length,
    groups: perGroup.length,
    inputs: perInput.length,
    distinct: mean(perGroup.map((g) => g.distinct)),
    majority: mean(perGroup.map((g) => g.majority)),
    entropy: mean(perGroup.map((g) => g.entropy)),
    gold: mean(perGroup.map((g) => g.gold)),
    agreement: mean(perInput.map((i) => i.agreement)),
    sensitivity: mean(perInput.map((i) => i.sensitivity)),
    sensitiveFraction: mean(perInput.map((i) => (i.sensitivity === null ? null : i.sensitivity > 0 ? 1 : 0))),
    changedPerturbationShare: perturbed === 0 ? null : changedTotal / perturbed,
    inputsWithoutOriginal: withoutOriginal,
    perGroup,
    perInput,
  };
}
