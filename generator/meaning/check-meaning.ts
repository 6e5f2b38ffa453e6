/**
 * The meaning check: reads a conceptual query and the E/R roles and lists every violation of
 * the rules of meaning (meaning-rules.ts), each rule in its own file under rules/. It is
 * written apart from the content filler and shares none of its code, so it checks the
 * filler rather than repeating it; `generate` runs it on every group that passed the
 * execution checks and rejects on a hit (`not-meaningful:<rule>`).
 */
import type { ErIndex } from '../er-model/er-index.ts';
import type { Query } from '../query/conceptual-query.ts';
import type { MeaningCheck } from './meaning-check.ts';
import type { MeaningViolation } from './meaning-rules.ts';
import { readQuery } from './query-meaning.ts';
import { additiveSum } from './rules/additive-sum.ts';
import { aggregateArgument } from './rules/aggregate-argument.ts';
import { alphabeticalCut } from './rules/alphabetical-cut.ts';
import { comparableColumns } from './rules/comparable-columns.ts';
import { constantOutput } from './rules/constant-output.ts';
import { crossProduct } from './rules/cross-product.ts';
import { distinctAggregate } from './rules/distinct-aggregate.ts';
import { exactMatch } from './rules/exact-match.ts';
import { fanOut } from './rules/fan-out.ts';
import { groupKey } from './rules/group-key.ts';
import { impliedBound } from './rules/implied-bound.ts';
import { likeOnText } from './rules/like-on-text.ts';
import { rangeOnQuantity } from './rules/range-on-quantity.ts';
import { repeatedRows } from './rules/repeated-rows.ts';
import { roundLimit } from './rules/round-limit.ts';
import { selfPairing } from './rules/self-pairing.ts';
import { shownByName } from './rules/shown-by-name.ts';
import { singleObjectGroups } from './rules/single-object-groups.ts';
import { textFunction } from './rules/text-function.ts';
import { typedValue } from './rules/typed-value.ts';
import { unitArithmetic } from './rules/unit-arithmetic.ts';

/** Every check, in the order of MEANING_RULES. */
export const MEANING_CHECKS: readonly MeaningCheck[] = [
  unitArithmetic,
  comparableColumns,
  additiveSum,
  aggregateArgument,
  distinctAggregate,
  groupKey,
  exactMatch,
  rangeOnQuantity,
  likeOnText,
  textFunction,
  shownByName,
  selfPairing,
  impliedBound,
  constantOutput,
  singleObjectGroups,
  fanOut,
  crossProduct,
  repeatedRows,
  typedValue,
  roundLimit,
  alphabeticalCut,
];

/**
 * Every violation of the rules of meaning in a query, in rule order; empty when an analyst
 * would ask it.
 *
 * @example
 * checkMeaning(indexDomain(retail), { kind: 'select', from: { entity: 'Product', alias: 'p' },
 *   select: [{ name: 'x', expr: { kind: 'arithmetic', op: '-', left: price, right: quantity } }] })
 * // [{ rule: 'unit-arithmetic', detail: 'USD - count of quantity: different units' }, { rule: 'shown-by-name', … }]
 */
export function checkMeaning(index: ErIndex, query: Query): MeaningViolation[] {
  const m = readQuery(index, query);
  const out: MeaningViolation[] = [];
  for (const check of MEANING_CHECKS) {
    const details = [
      ...(check.query ? check.query(m) : []),
      ...(check.select ? m.selects.flatMap((q) => check.select?.(m, q) ?? []) : []),
    ];
    for (const detail of details) out.push({ rule: check.rule, detail });
  }
  return out;
}
