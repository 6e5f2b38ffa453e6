/**
 * Text functions where a person wants them: a name's first letters or its case, the length
 * of free text (how long a review is). Not the length of a tag or a model number, not the
 * position of a letter, nothing computed on an email.
 */
import type { Expr } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf, type QueryMeaning } from '../query-meaning.ts';

function roleName(m: QueryMeaning, e: Expr): string {
  return refOf(m, e)?.role.kind ?? e.kind;
}

export const textFunction: MeaningCheck = {
  rule: 'text-function',
  select: (m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const e = n as unknown as Expr;
      if (e.kind === 'position') out.push('the position of a letter in a text');
      else if (e.kind === 'substring' && (roleName(m, e.arg) !== 'name' || e.start !== 1))
        out.push(`the letters of a ${roleName(m, e.arg)}`);
      else if (e.kind === 'textFunction') {
        const role = roleName(m, e.arg);
        if (e.fn === 'length' && role !== 'description') out.push(`the length of a ${role}`);
        if (e.fn !== 'length' && role !== 'name') out.push(`${e.fn}() of a ${role}`);
      }
    });
    return out;
  },
};
