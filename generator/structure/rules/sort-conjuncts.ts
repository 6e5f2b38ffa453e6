/**
 * SQLStructEval's logical-operator normalization: nested ANDs become one list of
 * conjuncts, sorted by their SQL text, rebuilt left-deep. `a AND b` and `b AND a` then
 * print the same. OR is left as written, as the paper does.
 *
 * Table aliases are numbered by appearance before this rule runs, so the aliases a
 * conjunct's subqueries define carry numbers that depend on the written order. The sort
 * key therefore blanks those inner aliases (references to outer tables keep their
 * numbers), and the aliases are numbered again afterwards (see `canonical-structure.ts`).
 */
import type { Expr, Query, SelectQuery, TableSource } from '../../sql/sql-ast.ts';
import { printExpr } from '../../sql/sql-printer.ts';
import { transformExpr, transformQuery } from '../query-transform.ts';

const BLANK = '_';

function sourcesOf(select: SelectQuery): TableSource[] {
  return select.from ? [select.from.first, ...select.from.joins.map((j) => j.source)] : [];
}

/** `expr` with every table alias defined inside its nested queries renamed `_`. */
function blankInnerAliases(expr: Expr): Expr {
  const inner = new Set<string>();
  transformExpr(expr, {
    select: (select) => {
      for (const source of sourcesOf(select)) if (source.alias !== null) inner.add(source.alias.toLowerCase());
      return select;
    },
  });
  if (inner.size === 0) return expr;
  const blank = (name: string | null): string | null => (name !== null && inner.has(name.toLowerCase()) ? BLANK : name);
  return transformExpr(expr, {
    select: (select) =>
      select.from
        ? {
            ...select,
            from: {
              first: { ...select.from.first, alias: blank(select.from.first.alias) },
              joins: select.from.joins.map((j) => ({ ...j, source: { ...j.source, alias: blank(j.source.alias) } })),
            },
          }
        : select,
    expr: (e) => (e.kind === 'column' || e.kind === 'star' ? { ...e, table: blank(e.table) } : e),
  });
}

function conjuncts(expr: Expr): Expr[] {
  return expr.kind === 'logical' && expr.op === 'and' ? [...conjuncts(expr.left), ...conjuncts(expr.right)] : [expr];
}

export function sortConjuncts(query: Query): Query {
  return transformQuery(query, {
    expr: (expr) => {
      if (expr.kind !== 'logical' || expr.op !== 'and') return expr;
      const keyed = conjuncts(expr).map((c) => ({
        c,
        key: `${printExpr(blankInnerAliases(c)).toLowerCase()}\u0000${printExpr(c).toLowerCase()}`,
      }));
      keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const [first, ...rest] = keyed.map((k) => k.c);
      return rest.reduce<Expr>((left, right) => ({ kind: 'logical', op: 'and', left, right }), first as Expr);
    },
  });
}
