/**
 * Two columns compared hold the same kind of thing: prices with prices, one time with
 * another, names with names, ids with ids (a correlation). Not a price with a quantity.
 */
import type { Predicate } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf, unitOf } from '../query-meaning.ts';

const TEMPORAL = ['date', 'time'];

export const comparableColumns: MeaningCheck = {
  rule: 'comparable-columns',
  select: (m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const p = n as unknown as Predicate;
      if (p.kind !== 'compare') return;
      const l = refOf(m, p.left);
      const r = refOf(m, p.right);
      if (!l || !r) return;
      if (TEMPORAL.includes(l.role.kind) && TEMPORAL.includes(r.role.kind)) return;
      const lu = unitOf(m, p.left);
      const ru = unitOf(m, p.right);
      if (lu.kind === 'unit' && ru.kind === 'unit') {
        if (lu.unit !== ru.unit) out.push(`${l.name} ${p.op} ${r.name}: different units`);
        return;
      }
      if (l.role.kind !== r.role.kind) out.push(`${l.name} (a ${l.role.kind}) ${p.op} ${r.name} (a ${r.role.kind})`);
      else if ((l.role.kind === 'category' || l.role.kind === 'description') && l.name !== r.name)
        out.push(`${l.name} ${p.op} ${r.name}: different attributes`);
    });
    return out;
  },
};
