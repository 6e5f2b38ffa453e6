/**
 * Equality and IN on what takes few or identifying values: categories, flags, names,
 * identifiers, contacts, days, counts and scores, and a measure in whole units (an age of
 * 30). Never on free text (`description = '…'`), a measure in fractions (`price = 795.36`) or
 * an instant.
 */
import type { Expr, Predicate } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf, type QueryMeaning } from '../query-meaning.ts';

const NEVER = ['description', 'measure', 'time'];

function fault(m: QueryMeaning, e: Expr, how: string): string | undefined {
  const ref = refOf(m, e);
  if (!ref || !NEVER.includes(ref.role.kind)) return undefined;
  const whole = ref.attribute?.type.kind === 'integer' || ref.attribute?.type.kind === 'bigint';
  return ref.role.kind === 'measure' && whole ? undefined : `${how} on ${ref.name}, a ${ref.role.kind}`;
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
      else if (p.kind === 'contains') push(fault(m, { kind: 'attribute', alias: p.alias, attribute: p.attribute }, 'set membership'));
    });
    return out;
  },
};
