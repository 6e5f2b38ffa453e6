/**
 * Equality and IN on what takes few or identifying values: categories, flags, names,
 * identifiers, contacts, days and scores, and a measure or count of a small whole-number range
 * (an age of 30). Never on free text (`description = '…'`), a price (`price = 795.36`), a
 * stock level asked to the unit (`quantity = 47`) or an instant.
 */
import type { Expr, Predicate } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf, type QueryMeaning } from '../query-meaning.ts';

const NEVER = ['description', 'measure', 'count', 'time'];
/** Above this a whole number is asked for as a range, not to the unit (a price, a stock level). */
const SMALL_RANGE = 150;

function fault(m: QueryMeaning, e: Expr, how: string): string | undefined {
  const ref = refOf(m, e);
  if (!ref || !NEVER.includes(ref.role.kind)) return undefined;
  const whole = ref.attribute?.type.kind === 'integer' || ref.attribute?.type.kind === 'bigint';
  const max = ref.attribute?.hints?.max;
  const small = whole && typeof max === 'number' && max <= SMALL_RANGE;
  return (ref.role.kind === 'measure' || ref.role.kind === 'count') && small
    ? undefined
    : `${how} on ${ref.name}, a ${ref.role.kind}${ref.role.kind === 'measure' || ref.role.kind === 'count' ? ' of a wide range' : ''}`;
}

export const exactMatch: MeaningCheck = {
  rule: 'exact-match',
  select: (m, q) => {
    const out: string[] = [];
    const push = (x: string | undefined): void => {
      if (x) out.push(x);
    };
    ownNodes(q, (n) => {
      const p = n as unknown as Predicate | Expr;
      if (p.kind === 'compare' && (p.op === '=' || p.op === '<>')) {
        if (p.right.kind === 'literal') push(fault(m, p.left, p.op));
        else if (p.left.kind === 'literal') push(fault(m, p.right, p.op));
      } else if (p.kind === 'in') push(fault(m, p.expr, 'IN'));
      else if (p.kind === 'simpleCase') push(fault(m, p.operand, 'CASE on a value'));
      else if (p.kind === 'contains')
        push(fault(m, { kind: 'attribute', alias: p.alias, attribute: p.attribute }, 'set membership'));
    });
    return out;
  },
};
