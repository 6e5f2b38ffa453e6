import type { Expr, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import type { DescribeContext } from './context.ts';
import { article, conjuncts, isPostmodifier, listing, pluralVerb } from './english.ts';
import { expr } from './expressions.ts';
import { rows } from './joins.ts';
import { noun, scoped } from './nouns.ts';
import { predicate } from './predicates.ts';
import { groupKey } from './select-frame.ts';

/** "one of the creators that produced some content item whose …" for `x.id IN (SELECT b.id …)`. */
export function asReached(d: DescribeContext, q: SelectQuery, target: string, negated: boolean): string {
  const join = (q.joins ?? []).find((j) => j.alias === target);
  const saved = d.currentLeft;
  d.currentLeft = [];
  try {
    // The subquery's other partners of its base are introduced before a condition names them:
    // "any creator subscribed to by a subscriber, where the preference note of the subscriber is …".
    const others = (q.joins ?? []).filter(
      (j) => j.alias !== target && j.kind === 'relationship' && j.type === 'inner' && j.from === q.from.alias && !j.on,
    );
    const partners = others.map((j) => {
      if (j.kind !== 'relationship') return '';
      const rel = d.index.relationship(j.relationship);
      const phrase = j.direction === 'forward' ? rel.lexicon.forward : rel.lexicon.reverse;
      const partner = scoped(d, j.entity, 'a', j.alias);
      return isPostmodifier(phrase) ? ` ${phrase} ${partner}` : ` that ${phrase} ${partner}`;
    });
    const cond = q.where ? `${others.length > 0 ? ', where' : ' for which'} ${predicate(d, q.where)}` : '';
    if (join?.kind === 'relationship') {
      // "not written by any customer", "written by a customer": the determiner carries the negation.
      const base = scoped(d, q.from.entity, 'a', q.from.alias).replace(/^an? /u, negated ? 'any ' : '$&');
      const rel = d.index.relationship(join.relationship);
      const phrase = join.direction === 'forward' ? rel.lexicon.reverse : rel.lexicon.forward;
      const verb = isPostmodifier(phrase) ? phrase : `one that ${phrase}`;
      return `${negated ? 'not ' : ''}${verb} ${base}${partners.join(' and')}${cond}`;
    }
    // `x.id IN (SELECT s.id FROM S s WHERE …)`: x is one of those objects.
    return `${negated ? 'not ' : ''}one of the ${noun(d, q.from.alias, true)}${cond}`;
  } finally {
    d.currentLeft = saved;
  }
}

/** A subquery's rows as a noun phrase: "a content item produced by the creator, where …". */
export function subqueryRows(d: DescribeContext, q: SelectQuery, determiner: string): string {
  const saved = d.currentLeft;
  d.currentLeft = [];
  try {
    const r = rows(d, q, true).replace(/^every /u, determiner === 'a' ? '' : `${determiner} `);
    const withArticle = determiner === 'a' ? article(r) : r;
    const rest = conjuncts(q.where).filter((c) => !isCorrelation(d, c));
    const where = rest.length > 0 ? ` (counting only those where ${listing(rest.map((c) => predicate(d, c)))})` : '';
    let grouped = '';
    if ((q.groupBy?.length ?? 0) > 0) {
      const keys = listing((q.groupBy ?? []).map((k) => groupKey(d, k)));
      grouped = `, taken together per ${keys}${q.having ? ` such that ${predicate(d, q.having, { grouped: true })}` : ''}`;
      d.covered.add('subquery-group');
    }
    return `${withArticle}${where}${grouped}`;
  } finally {
    d.currentLeft = saved;
  }
}

/** Whether a conjunct is a subquery's back link to an outer alias (said as a postmodifier, not a condition). */
export function isCorrelation(d: DescribeContext, c: Predicate): boolean {
  if (c.kind !== 'compare' || c.op !== '=' || c.left.kind !== 'attribute' || c.right.kind !== 'attribute') return false;
  const l = d.aliases.get(c.left.alias);
  const r = d.aliases.get(c.right.alias);
  return (
    (l?.sameAs === c.right.alias || r?.sameAs === c.left.alias) &&
    c.left.attribute === 'id' &&
    c.right.attribute === 'id'
  );
}

/** A scalar subquery's value: "the number of content items produced by the creator (where …)". */
export function subqueryValue(d: DescribeContext, q: SelectQuery): string {
  const out = q.select[0]?.expr;
  const r = subqueryRows(d, q, 'every').replace(/^every /u, '');
  if (out?.kind === 'aggregate' && out.fn === 'count' && (!out.arg || out.distinct !== true)) {
    d.covered.add('scalar-subquery');
    const plural = noun(d, q.from.alias, true);
    const rest = r.slice(r.indexOf(noun(d, q.from.alias)) + noun(d, q.from.alias).length);
    // The noun is now plural, and so is its verb: "subscribers that subscribe to the creator".
    return `the number of ${plural}${rest.replace(/^ that (.+)$/u, (_, phrase: string) => ` that ${pluralVerb(phrase)}`)}`;
  }
  d.covered.add('scalar-subquery');
  return `${expr(d, out as Expr, { grouped: false })}, computed over every ${r}`;
}
