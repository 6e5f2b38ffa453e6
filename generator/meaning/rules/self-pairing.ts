/**
 * A relationship joined twice the same way from one object pairs it with itself: "a
 * subscriber, a first, a second and a third content item" they viewed. A chain through a
 * self relationship (a book's prequel's prequel) is two different ends and is fine; so is
 * one relationship walked both ways where the ends differ.
 */
import type { Join } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';

type RelJoin = Extract<Join, { kind: 'relationship' }>;

export const selfPairing: MeaningCheck = {
  rule: 'self-pairing',
  select: (_m, q) => {
    const out: string[] = [];
    const joins = q.joins ?? [];
    const rels = joins.filter((j): j is RelJoin => j.kind === 'relationship');
    rels.forEach((a, i) => {
      for (const b of rels.slice(i + 1)) {
        if (a.relationship !== b.relationship) continue;
        const chained = b.from === a.alias || a.from === b.alias;
        if (a.direction === b.direction && !chained)
          out.push(`${a.relationship} joined twice from ${a.from === b.from ? a.from : `${a.from} and ${b.from}`}`);
        if (a.direction !== b.direction && chained) out.push(`${a.relationship} walked there and back`);
      }
    });
    // From the FROM alias straight back: the base relation joined to itself through the link.
    const elements = joins.filter((j) => j.kind === 'elements');
    elements.forEach((a, i) => {
      for (const b of elements.slice(i + 1))
        if (a.kind === 'elements' && b.kind === 'elements' && a.of === b.of && a.attribute === b.attribute)
          out.push(`the elements of ${a.attribute} joined twice`);
    });
    return out;
  },
};
