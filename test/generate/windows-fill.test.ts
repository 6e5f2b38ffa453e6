/**
 * Windows as the filler draws them (generate/fill/windows.ts): a previous, next or running
 * figure only along time and forward, a running total of a quantity that adds up and is not
 * the order itself, partitions only by what several rows share, and no window output on a
 * single row.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../generator/common/rng.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { roleOf } from '../../generator/er-model/attribute-roles.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { topPerGroup, windowOutput } from '../../generator/generate/fill/windows.ts';
import type { Expr, SelectQuery, WindowExpr } from '../../generator/query/conceptual-query.ts';

const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
const social = indexDomain(BUILT_IN_DOMAINS['social_media']!);
const TEMPORAL = ['date', 'timestamp', 'timestamptz'];

// Recorded videos: a creation time, a duration, a file size, a resolution.
const videos: SelectQuery = {
  kind: 'select',
  from: { entity: 'RecordedContent', alias: 'rc' },
  select: [{ name: 'id', expr: { kind: 'attribute', alias: 'rc', attribute: 'id' } }],
};
// Products with their reviews: each review is about one product, so a review is one row.
const productsWithReviews: SelectQuery = {
  kind: 'select',
  from: { entity: 'Product', alias: 'p' },
  joins: [
    {
      kind: 'relationship',
      type: 'inner',
      relationship: 'about',
      from: 'p',
      direction: 'reverse',
      alias: 'r',
      entity: 'Review',
    },
  ],
  select: [{ name: 'name', expr: { kind: 'attribute', alias: 'p', attribute: 'name' } }],
};

function drawn(index: typeof retail, q: SelectQuery, n: number): WindowExpr[] {
  const out: WindowExpr[] = [];
  for (let i = 0; i < n; i++) {
    const w = windowOutput(index, createRng(`w${i}`), q);
    const last = w?.select.at(-1)?.expr;
    if (last?.kind === 'window') out.push(last);
    const t = topPerGroup(index, createRng(`t${i}`), q);
    if (t?.qualify) out.push(t.qualify.window);
  }
  return out;
}

const typeOf = (entity: string, e: Expr | undefined): string | undefined => {
  if (e?.kind !== 'attribute') return undefined;
  return social.allAttributes(entity).find((a) => a.attribute.name === e.attribute)?.attribute.type.kind;
};

describe('windows the filler draws', () => {
  it('takes a previous, next or running figure only along time, forward, and a running total only of what adds up', () => {
    const windows = drawn(social, videos, 300);
    const fns = new Set(windows.map((w) => w.fn));
    // The draw reaches every kind it offers on orders.
    expect([...fns].sort()).toEqual(['dense_rank', 'lag', 'lead', 'rank', 'row_number', 'sum']);
    for (const w of windows) {
      const order = w.orderBy?.[0];
      if (w.fn === 'lag' || w.fn === 'lead' || w.fn === 'sum') {
        expect(TEMPORAL).toContain(typeOf('RecordedContent', order?.expr));
        expect(order?.direction).toBe('asc');
      }
      if (w.fn === 'lag' || w.fn === 'lead') expect(w.arg).toEqual(order?.expr);
      if (w.fn === 'sum') {
        const arg = w.arg as Extract<Expr, { kind: 'attribute' }>;
        const owner = social.allAttributes('RecordedContent').find((a) => a.attribute.name === arg.attribute)
          ?.owner.name;
        const role = roleOf(social.domain, owner ?? '', arg.attribute);
        expect(role?.kind === 'measure' && role.additive).toBe(true);
        expect(arg).not.toEqual(order?.expr);
      }
      expect(w.fn).not.toBe('count');
      expect(w.fn).not.toBe('avg');
    }
  });

  it('partitions by a partner only when several rows share it, and adds no window to a single row', () => {
    for (const w of drawn(retail, productsWithReviews, 200))
      for (const k of w.partitionBy ?? []) expect(k.kind === 'attribute' && k.alias === 'r').toBe(false);
    for (let i = 0; i < 50; i++) expect(windowOutput(social, createRng(i), { ...videos, limit: 1 })).toBeUndefined();
    // Nor to the rows one title picks: their ranks say nothing.
    const titled: SelectQuery = {
      ...videos,
      where: {
        kind: 'compare',
        op: '=',
        left: { kind: 'attribute', alias: 'rc', attribute: 'title' },
        right: { kind: 'literal', value: 'Money' },
      },
    };
    const plain = Array.from({ length: 50 }, (_, i) => windowOutput(social, createRng(i), videos));
    expect(plain.some((q) => q !== undefined)).toBe(true);
    for (let i = 0; i < 50; i++) expect(windowOutput(social, createRng(i), titled)).toBeUndefined();
  });
});
