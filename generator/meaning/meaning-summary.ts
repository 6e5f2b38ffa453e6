/**
 * What the rules of meaning did to a run: the share of candidates accepted, and per rule how
 * many candidates the filler could not fill meaningfully (`no-meaningful-slot:<rule>`) and
 * how many the meaning check refused after filling (`not-meaningful:<rule>`); and, read
 * again, the violations the check finds in the accepted groups (none, when the run checked).
 */
import type { ErIndex } from '../er-model/er-index.ts';
import type { Query } from '../query/conceptual-query.ts';
import { checkMeaning } from './check-meaning.ts';
import { MEANING_RULES, type MeaningRule } from './meaning-rules.ts';

export interface MeaningSummary {
  readonly candidates: number;
  readonly accepted: number;
  /** Per rule: candidates whose filling found nothing the rule allows, and candidates the check refused. */
  readonly rules: Readonly<
    Record<MeaningRule, { readonly unfilled: number; readonly refused: number; readonly inAccepted: number }>
  >;
  /** Accepted groups with at least one violation. */
  readonly acceptedWithViolations: number;
}

export function summarizeMeaning(
  index: ErIndex,
  groups: readonly { readonly query: Query }[],
  rejections: readonly { readonly reason: string }[],
): MeaningSummary {
  const rules = Object.fromEntries(MEANING_RULES.map((r) => [r, { unfilled: 0, refused: 0, inAccepted: 0 }])) as Record<
    MeaningRule,
    { unfilled: number; refused: number; inAccepted: number }
  >;
  for (const r of rejections) {
    const [family, rule] = r.reason.split(':') as [string, MeaningRule | undefined];
    if (rule && rules[rule]) {
      if (family === 'no-meaningful-slot') rules[rule].unfilled += 1;
      if (family === 'not-meaningful') rules[rule].refused += 1;
    }
  }
  let acceptedWithViolations = 0;
  for (const g of groups) {
    const hit = new Set(checkMeaning(index, g.query).map((v) => v.rule));
    if (hit.size > 0) acceptedWithViolations += 1;
    for (const rule of hit) rules[rule].inAccepted += 1;
  }
  return { candidates: groups.length + rejections.length, accepted: groups.length, rules, acceptedWithViolations };
}

/** The summary as the lines `npm run meaning-report` prints. */
export function formatMeaningSummary(dataset: string, s: MeaningSummary): string[] {
  const share = (n: number): string => `${((100 * n) / Math.max(1, s.candidates)).toFixed(1)}%`;
  const lines = [
    `${dataset}: ${s.accepted} of ${s.candidates} candidates accepted (${share(s.accepted)}); accepted groups with a violation: ${s.acceptedWithViolations}`,
  ];
  lines.push(`  ${'rule'.padEnd(22)} ${'unfilled'.padStart(9)} ${'refused'.padStart(8)} ${'in accepted'.padStart(12)}`);
  for (const rule of MEANING_RULES) {
    const r = s.rules[rule];
    lines.push(
      `  ${rule.padEnd(22)} ${String(r.unfilled).padStart(9)} ${String(r.refused).padStart(8)} ${String(r.inAccepted).padStart(12)}`,
    );
  }
  return lines;
}
