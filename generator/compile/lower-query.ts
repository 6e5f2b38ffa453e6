import { snakeCase } from '../er-model/er-index.ts';
import type { AttributeType } from '../er-model/er-model.ts';
import { CompileError } from '../common/errors.ts';
import { scalarSqlType } from '../variants/build-schema.ts';
import type { Table } from '../variants/relational-schema.ts';
import type { Expr, Join, Predicate, Query, SelectQuery } from '../query/conceptual-query.ts';
import type { AliasInfo, QueryScope } from '../query/query-scope.ts';
import { walk } from '../query/walk.ts';
import { isEnumTyped } from '../variants/native-names.ts';
import { entityView, keyColumnOf, needKey, type EntityView, type Need, type VariantIndex } from './entity-view.ts';
import { qualifiedSelect, windowSql } from './compile-window.ts';
import { sharedValues, valueKey } from './compile-shared-value.ts';
import { uniqueAlias } from './alias-names.ts';
import { printExpr } from './print-sql.ts';
import { readsAlias, rewriteExpr } from './sql-tree-walk.ts';
import {
  binary,
  call,
  column,
  emptySelect,
  FALSE,
  isBoolean,
  isNull,
  literal,
  not,
  paren,
  STAR,
  table as tableItem,
  TRUE,
  type SqlColumn,
  type SqlExpr,
  type SqlFromItem,
  type SqlJoin,
  type SqlOrderItem,
  type SqlQuery,
  type SqlSelect,
  type SqlSelectColumn,
  type SqlSetOperator,
} from './sql-tree.ts';
import {
  aggregates,
  builtFrom,
  conditionBuiltFrom,
  conjunctsOf,
  expressionKey,
  sharedOutputs,
} from './shared-expressions.ts';
import { isAnalytic, valueKind } from '../query/analytic-expr.ts';
import { compileAggregate, compileAnalyticExpr, type ExpressionCompiler } from './compile-expression.ts';

const col = (alias: string, name: string): SqlColumn => column(alias, name);

/** How a compiled alias reads: its columns, and for entities its subclass tests. */
interface Bound {
  readonly columns: ReadonlyMap<string, SqlExpr>;
  readonly isA?: (entity: string) => SqlExpr | undefined;
  /** Elements aliases: the element's SQL. */
  readonly element?: SqlExpr;
  /** Aliases joined through a relationship table: columns of the link row. */
  readonly link?: ReadonlyMap<string, SqlExpr>;
  /** Further columns to group by with the alias's id (its discriminator, say). */
  readonly groupExtras?: readonly SqlExpr[];
  /** A column naming each row's most specific class (a UNION of concrete tables). */
  readonly classColumn?: { readonly sql: SqlExpr; readonly classes: readonly string[] };
}
/**
 * Lowers a conceptual query (scoped, in canonical order, its query rules applied) into the
 * SQL tree for one variant: view unfolding of every entity, relationship and set. The
 * tree rules and the printer take it from there (compile-query.ts).
 */
export function lowerQuery(v: VariantIndex, scope: QueryScope, query: Query): SqlQuery {
  return new QueryCompiler(v, scope, query).query(query);
}

class QueryCompiler {
  private readonly needs = new Map<string, Map<string, Need>>();
  private readonly bound = new Map<string, Bound>();
  private readonly used = new Set<string>();
  /** Aliases a LEFT join introduced: absent partners read as NULL there. */
  private readonly nullable = new Set<string>();
  /** Subclasses each alias is tested against (isA, classOf). */
  private readonly isATargets = new Map<string, Set<string>>();
  /** Expressions (by key) that read as an output column of a derived table, while its outer query compiles. */
  private readonly substitutions = new Map<string, SqlExpr>();

  constructor(
    private readonly v: VariantIndex,
    private readonly scope: QueryScope,
    query: Query,
  ) {
    for (const alias of scope.aliases.keys()) this.used.add(alias);
    this.collectNeeds(query);
  }

  /** A short SQL alias for a table (or set-returning function) not used anywhere in the query. */
  private fresh(tableName: string): string {
    return uniqueAlias(tableName, this.used);
  }

  private info(alias: string): AliasInfo {
    const info = this.scope.aliases.get(alias);
    if (!info) throw new CompileError(`unknown alias "${alias}"`);
    return info;
  }

  private encodingOf(entity: string, attribute: string): 'array' | 'jsonb' | 'table' {
    const e = this.v.schema.variant.multiValued[`${entity}.${attribute}`];
    if (!e) throw new CompileError(`variant ${this.v.schema.variant.name}: no encoding for ${entity}.${attribute}`);
    return e;
  }

  private relationshipInTable(relationship: string): boolean {
    const rel = this.v.index.relationship(relationship);
    return rel.cardinality === 'many-to-many' || this.v.schema.variant.relationships[relationship] === 'table';
  }

  // ---- pass 1: which columns each entity alias must provide ----

  private need(alias: string, need: Need): void {
    let map = this.needs.get(alias);
    if (!map) this.needs.set(alias, (map = new Map()));
    map.set(needKey(need), need);
  }

  private collectNeeds(query: Query): void {
    walk(query, (n) => {
      switch (n.kind) {
        case 'attribute':
          if (n.attribute !== 'id') {
            const owner = this.scope.attributeOwner(n.alias, n.attribute);
            this.need(n.alias, { kind: 'attribute', entity: owner.entity, attribute: n.attribute });
          }
          break;
        case 'setSize':
        case 'setArray':
        case 'contains': {
          const owner = this.scope.attributeOwner(n.alias, n.attribute);
          if (this.encodingOf(owner.entity, n.attribute) !== 'table')
            this.need(n.alias, { kind: 'nested', entity: owner.entity, attribute: n.attribute });
          break;
        }
        case 'elements': {
          const owner = this.scope.attributeOwner(n.of, n.attribute);
          if (this.encodingOf(owner.entity, n.attribute) !== 'table')
            this.need(n.of, { kind: 'nested', entity: owner.entity, attribute: n.attribute });
          break;
        }
        case 'isA':
        case 'classOf': {
          this.need(n.alias, { kind: 'type' });
          const targets = this.isATargets.get(n.alias) ?? new Set<string>();
          for (const c of n.kind === 'isA' ? [n.entity] : n.among) targets.add(c);
          this.isATargets.set(n.alias, targets);
          break;
        }
        case 'relationship':
          if (!this.relationshipInTable(n.relationship))
            this.need(n.direction === 'forward' ? n.from : n.alias, {
              kind: 'reference',
              relationship: n.relationship,
            });
          break;
        case 'linkAttribute': {
          const info = this.info(n.alias);
          if (info.kind === 'entity' && info.via && !this.relationshipInTable(info.via.relationship)) {
            const fromSide = info.via.direction === 'forward' ? info.via.from : n.alias;
            this.need(fromSide, {
              kind: 'relationshipAttribute',
              relationship: info.via.relationship,
              attribute: n.attribute,
            });
          }
          break;
        }
        default:
          break;
      }
    });
  }

  private view(alias: string, entity: string): EntityView {
    return entityView(this.v, alias, entity, [...(this.needs.get(alias)?.values() ?? [])], (b) => this.fresh(b), [
      ...(this.isATargets.get(alias) ?? []),
    ]);
  }

  // ---- pass 2: SQL ----

  query(q: Query): SqlQuery {
    if (q.kind === 'set') {
      this.outermost = false;
      return {
        kind: 'set',
        op: q.op.toUpperCase() as SqlSetOperator,
        left: this.query(q.left),
        right: this.query(q.right),
        orderBy: (q.orderBy ?? []).map((o) => ({
          expr: column(undefined, o.name),
          ...(o.direction === 'desc' ? { desc: true } : {}),
        })),
        limit: q.limit,
      };
    }
    return this.select(q);
  }

  /** Whether the next SELECT compiled is the outermost one (a WITH goes only there). */
  private outermost = true;
  /** Subqueries computed once in a CTE: their key, and the column that holds the value. */
  private readonly lifted = new Map<string, SqlExpr>();

  private select(q: SelectQuery): SqlSelect {
    const outermost = this.outermost;
    this.outermost = false;
    if (!q.qualify) {
      // An output the query would write again is computed once, in a derived table.
      const shared = sharedOutputs(q);
      return shared.size > 0 ? this.overDerived(q, shared) : this.plainSelect(q, outermost);
    }
    // Top-N per group: the window beside the outputs in a CTE, filtered outside it.
    const { qualify } = q;
    const inner = this.plainSelect({
      ...q,
      qualify: undefined,
      orderBy: undefined,
      limit: undefined,
      distinct: undefined,
    });
    return qualifiedSelect(
      { ...q, qualify },
      inner,
      this.expr(qualify.window),
      new Set(this.v.schema.tables.map((t) => t.name)),
    );
  }

  /**
   * A query that would write an output's expression again (a correlated count in WHERE and
   * in SELECT, aggregates summed in ORDER BY): a derived table computes every output once,
   * and the outer query filters and orders by the outputs' names.
   *
   * @example
   * // SELECT first_name, order_count FROM (
   * //     SELECT u.first_name, (SELECT count(*) FROM orders AS o WHERE o.customer_id = c.id) AS order_count, c.id
   * //     FROM customers AS c …) AS t
   * // WHERE order_count >= 3 ORDER BY order_count DESC, id
   */
  private overDerived(q: SelectQuery, shared: ReadonlyMap<string, string>): SqlSelect {
    const grouped = (q.groupBy?.length ?? 0) > 0 || q.having !== undefined || q.select.some((c) => aggregates(c.expr));
    const outer: Predicate[] = [];
    const innerWhere: Predicate[] = [];
    const innerHaving: Predicate[] = [];
    // Row conditions move out only when nothing is grouped: after grouping they would
    // filter groups instead of rows.
    for (const p of conjunctsOf(q.where)) (!grouped && conditionBuiltFrom(p, shared) ? outer : innerWhere).push(p);
    for (const p of conjunctsOf(q.having)) (conditionBuiltFrom(p, shared) ? outer : innerHaving).push(p);
    const names = new Set(q.select.map((c) => c.name));
    const hidden: { name: string; expr: Expr }[] = [];
    const order: (string | { expr: Expr })[] = [];
    for (const o of q.orderBy ?? []) {
      const same =
        o.expr.kind === 'output' ? o.expr.name : q.select.find((c) => sameExpr(c.expr, o.expr as Expr))?.name;
      if (same !== undefined) order.push(same);
      else if (builtFrom(o.expr as Expr, shared)) order.push({ expr: o.expr as Expr });
      else {
        // Sorted by something the answer does not show: carried out of the derived table.
        const e = o.expr as Expr;
        const base = e.kind === 'attribute' ? e.attribute : 'sort_key';
        let name = base;
        for (let i = 2; names.has(name); i++) name = `${base}_${i}`;
        names.add(name);
        hidden.push({ name, expr: e });
        order.push(name);
      }
    }
    const and = (ps: Predicate[]): Predicate | undefined =>
      ps.length === 0 ? undefined : ps.length === 1 ? ps[0] : { kind: 'and', args: ps };
    const innerWhereP = and(innerWhere);
    const innerHavingP = and(innerHaving);
    const inner = this.plainSelect({
      kind: 'select',
      select: [...q.select, ...hidden],
      from: q.from,
      ...(q.joins ? { joins: q.joins } : {}),
      ...(innerWhereP ? { where: innerWhereP } : {}),
      ...(q.groupBy ? { groupBy: q.groupBy } : {}),
      ...(innerHavingP ? { having: innerHavingP } : {}),
    });
    for (const [key, name] of shared) this.substitutions.set(key, column(undefined, name));
    try {
      return {
        ...emptySelect({ kind: 'derived', query: inner, alias: this.fresh('t') }),
        distinct: q.distinct === true,
        columns: q.select.map((c) => ({ expr: column(undefined, c.name) })),
        where: outer.flatMap((p) => this.conjuncts(p)),
        orderBy: (q.orderBy ?? []).map((o, i): SqlOrderItem => {
          const item = order[i] as string | { expr: Expr };
          return {
            expr: typeof item === 'string' ? column(undefined, item) : this.expr(item.expr),
            ...(o.direction === 'desc' ? { desc: true } : {}),
          };
        }),
        limit: q.limit,
      };
    } finally {
      for (const key of shared.keys()) this.substitutions.delete(key);
    }
  }

  private plainSelect(q: SelectQuery, outermost = false): SqlSelect {
    const base = this.view(q.from.alias, q.from.entity);
    this.bind(q.from.alias, base);
    const joins: SqlJoin[] = [...base.joins];
    const where: SqlExpr[] = [...base.filters];
    // A link table that alone answers (the entity only names the link rows' end) leads.
    const lead = this.leadingLink(q, base);
    if (lead) this.bound.set(q.from.alias, { columns: new Map([['id', lead.id]]), isA: () => undefined });
    (q.joins ?? []).forEach((j, i) => this.join(j, joins, where, i === 0 ? lead?.alias : undefined));
    const ctes = outermost ? this.liftShared(q, joins) : [];
    // A partner elided to its reference column is there when that column is not NULL (the
    // rule drop-implied-predicates takes the test off where a condition compares the column).
    if (q.where) where.push(...this.conjuncts(q.where));
    const outputs = new Set(q.select.map((c) => c.name));
    return {
      kind: 'select',
      distinct: q.distinct === true,
      columns: q.select.map((c): SqlSelectColumn => {
        const expr = this.expr(c.expr);
        // A column read under its own name needs no `AS`, whichever table it comes from.
        const plain =
          c.expr.kind === 'attribute' && expr.kind === 'column' && expr.table !== undefined && expr.name === c.name;
        return plain ? { expr } : { expr, alias: c.name };
      }),
      from: lead?.item ?? base.from,
      joins,
      where,
      // A grouping expression that is also an output column is grouped by the output's
      // name: PostgreSQL then accepts subqueries in it (a class test, say) as grouped.
      groupBy: this.groupBy(q),
      having: q.having ? this.conjuncts(q.having) : [],
      orderBy: (q.orderBy ?? []).map((o): SqlOrderItem => {
        const target = o.expr.kind === 'output' ? column(undefined, o.expr.name) : this.orderExpr(o.expr, q, outputs);
        return {
          expr: target,
          ...(o.direction === 'desc' ? { desc: true } : {}),
          ...(o.nulls ? { nulls: o.nulls } : {}),
        };
      }),
      limit: q.limit,
      ...(ctes.length > 0 ? { with: ctes } : {}),
    };
  }

  /**
   * A value the query reads twice, computed once: a CTE per shared subquery, cross joined
   * (it has one row), its column read wherever the subquery stood.
   */
  private liftShared(q: SelectQuery, joins: SqlJoin[]): { name: string; query: SqlQuery }[] {
    const tables = new Set(this.v.schema.tables.map((t) => t.name));
    return sharedValues(q).map((shared) => {
      const value = (shared.query.select[0] as { name: string }).name;
      let name = this.fresh(value);
      while (tables.has(name)) name = this.fresh(value);
      const query = this.select(shared.query);
      joins.push({ type: 'CROSS JOIN', item: tableItem(name, name), on: [] });
      this.lifted.set(shared.key, col(name, value));
      return { name, query };
    });
  }

  /**
   * GROUP BY as written, with two adjustments. A grouping expression that is also an output
   * column (other than a plain attribute) is grouped by the output's position: PostgreSQL
   * then accepts subqueries in it (a class test, say) as grouped, and a position, unlike a
   * name, cannot be mistaken for a table column. And where an alias's id is grouped, every
   * column the query reads from that alias is grouped too: they depend on the id, but
   * PostgreSQL only sees that through a primary key, which a derived table or a joined
   * ancestor table does not offer.
   */
  private groupBy(q: SelectQuery): SqlExpr[] {
    const out = (q.groupBy ?? []).map((e) => {
      const position = e.kind === 'attribute' ? -1 : q.select.findIndex((c) => sameExpr(c.expr, e));
      return position >= 0 ? literal(position + 1) : this.expr(e);
    });
    const keys = new Set(out.map(printExpr));
    const add = (sql: SqlExpr): void => {
      const key = printExpr(sql);
      if (keys.has(key)) return;
      keys.add(key);
      out.push(sql);
    };
    for (const e of q.groupBy ?? []) {
      if (e.kind !== 'attribute' || e.attribute !== 'id') continue;
      const bound = this.bound_(e.alias);
      for (const [key, sql] of bound.columns) if (key !== 'id') add(sql);
      for (const sql of bound.groupExtras ?? []) add(sql);
    }
    return out;
  }

  /** ORDER BY an expression that is also an output column: refer to the output by name. */
  private orderExpr(e: Expr, q: SelectQuery, outputs: Set<string>): SqlExpr {
    const same = q.select.find((c) => sameExpr(c.expr, e));
    if (same && outputs.has(same.name) && e.kind !== 'attribute') return column(undefined, same.name);
    return this.expr(e);
  }

  private bind(alias: string, view: EntityView, link?: ReadonlyMap<string, SqlExpr>): void {
    this.bound.set(alias, {
      columns: view.columns,
      isA: view.isA,
      link,
      ...(view.groupExtras ? { groupExtras: view.groupExtras } : {}),
      ...(view.classColumn ? { classColumn: view.classColumn } : {}),
    });
  }

  private bound_(alias: string): Bound {
    const b = this.bound.get(alias);
    if (!b) throw new CompileError(`alias "${alias}" is used before it is joined`);
    return b;
  }

  private column(alias: string, key: string): SqlExpr {
    const sql = this.bound_(alias).columns.get(key);
    if (sql === undefined) throw new CompileError(`alias "${alias}" has no column ${key}`);
    return sql;
  }

  /** The table of a relationship kept in its own table, and its columns for each side of `j`. */
  private linkEnds(j: Extract<Join, { kind: 'relationship' }>): { table: Table; fromColumn: string; toColumn: string } {
    const table = this.v.tableByRole(
      (t) => t.role.kind === 'relationship' && t.role.relationship === j.relationship,
    ) as Table;
    const fromColumn = table.columns.find(
      (c) => c.role.kind === 'end' && c.role.end === (j.direction === 'forward' ? 'from' : 'to'),
    )?.name as string;
    const toColumn = table.columns.find(
      (c) => c.role.kind === 'end' && c.role.end === (j.direction === 'forward' ? 'to' : 'from'),
    )?.name as string;
    return { table, fromColumn, toColumn };
  }

  /**
   * Whether the query can start from the link table of its first join instead of its FROM
   * entity: the entity is read only through its id, its table holds exactly the
   * relationship's end class (no filter, no further tables), and the join is inner, so every
   * link row meets one entity row and the entity's table adds nothing. Returns the link
   * table as a FROM item and the column that stands for the entity's id.
   */
  private leadingLink(q: SelectQuery, base: EntityView): { item: SqlFromItem; alias: string; id: SqlExpr } | undefined {
    const j = q.joins?.[0];
    if (
      !j ||
      j.kind !== 'relationship' ||
      j.type !== 'inner' ||
      j.from !== q.from.alias ||
      !this.relationshipInTable(j.relationship)
    )
      return undefined;
    const rel = this.v.index.relationship(j.relationship);
    if (q.from.entity !== (j.direction === 'forward' ? rel.from : rel.to)) return undefined;
    if (base.from.kind !== 'table' || base.joins.length > 0 || base.filters.length > 0) return undefined;
    if ((this.needs.get(q.from.alias)?.size ?? 0) > 0 || this.isATargets.has(q.from.alias)) return undefined;
    const { table, fromColumn } = this.linkEnds(j);
    const alias = this.fresh(table.name);
    return { item: tableItem(table.name, alias), alias, id: col(alias, fromColumn) };
  }

  private join(j: Join, joins: SqlJoin[], where: SqlExpr[], leadLink?: string): void {
    if (j.kind === 'elements') {
      this.elementsJoin(j, joins);
      return;
    }
    const rel = this.v.index.relationship(j.relationship);
    const target = this.view(j.alias, j.entity);
    const endType = j.direction === 'forward' ? rel.to : rel.from;
    // Conditions on the new alias that decide which partners count: the join's `on`, and a
    // subclass filter when the alias is narrower than the relationship's end.
    this.bind(j.alias, target);
    const conditions = [...(j.entity === endType ? [] : target.filters), ...(j.on ? this.conjuncts(j.on) : [])];
    // A partner of exactly the end's type read from a table that holds several classes is
    // filtered all the same: the SQL says which rows it means instead of leaning on what the
    // data happens to hold (the schema does not constrain a reference's class). The filter
    // is true for every partner the relationship links, so it changes no answer and no
    // join strategy; a partner elided to its reference column reads no table and needs none.
    const stated = [...conditions, ...(j.entity === endType ? target.filters : [])];
    const needsOnlyId = j.entity === endType && (this.needs.get(j.alias)?.size ?? 0) === 0 && conditions.length === 0;
    if (j.type === 'left') this.nullable.add(j.alias);
    const left = j.type === 'left';

    if (!this.relationshipInTable(j.relationship)) {
      // A reference on the `from` row.
      if (j.direction === 'forward') {
        const reference = this.column(j.from, needKey({ kind: 'reference', relationship: j.relationship }));
        if (needsOnlyId && this.mayElide(j.alias)) {
          this.bound.set(j.alias, { columns: new Map([['id', reference]]), isA: () => undefined });
          if (!left) where.push(isNull(reference, true));
          return;
        }
        this.attach(j.alias, target, [binary('=', this.column(j.alias, 'id'), reference)], stated, left, joins);
      } else {
        const reference = this.column(j.alias, needKey({ kind: 'reference', relationship: j.relationship }));
        this.attach(j.alias, target, [binary('=', reference, this.column(j.from, 'id'))], stated, left, joins);
      }
      return;
    }

    // A relationship table: link rows between the two ends.
    const { table, fromColumn, toColumn } = this.linkEnds(j);
    const linkColumns = (linkAlias: string): Map<string, SqlExpr> =>
      new Map(
        table.columns
          .filter((c) => c.role.kind === 'relationshipAttribute')
          .map((c) => [(c.role as { attribute: string }).attribute, col(linkAlias, c.name)]),
      );
    if (needsOnlyId) {
      const link = leadLink ?? this.fresh(table.name);
      if (!leadLink)
        joins.push({
          type: left ? 'LEFT JOIN' : 'JOIN',
          item: tableItem(table.name, link),
          on: [binary('=', col(link, fromColumn), this.column(j.from, 'id'))],
        });
      this.bound.set(j.alias, {
        columns: new Map([['id', col(link, toColumn)]]),
        isA: () => undefined,
        link: linkColumns(link),
      });
      return;
    }
    // Two plain LEFT JOINs (link, then partner) are right only when every link's partner
    // qualifies; a narrower partner class or a condition needs the derived table below.
    const simpleTarget = j.entity === endType && target.joins.length === 0 && conditions.length === 0;
    if (!left || simpleTarget) {
      const link = leadLink ?? this.fresh(table.name);
      const type = left ? 'LEFT JOIN' : 'JOIN';
      if (!leadLink)
        joins.push({
          type,
          item: tableItem(table.name, link),
          on: [binary('=', col(link, fromColumn), this.column(j.from, 'id'))],
        });
      joins.push({
        type,
        item: target.from,
        on: [binary('=', this.column(j.alias, 'id'), col(link, toColumn)), ...stated],
      });
      joins.push(...target.joins);
      this.bind(j.alias, target, linkColumns(link));
      return;
    }
    // LEFT join to a partner that needs filtering or several tables: join the link rows to
    // the partner first, inside a derived table, so an object without a matching partner
    // keeps exactly one row.
    const link = this.fresh(table.name);
    const exposed = this.expose(j.alias, target, [
      ['link_from', col(link, fromColumn)],
      ...[...linkColumns(link)].map(([k, s]) => [`link_${k}`, s] as [string, SqlExpr]),
    ]);
    const inner: SqlSelect = {
      ...emptySelect(tableItem(table.name, link)),
      columns: exposed.columns,
      joins: [
        {
          type: 'JOIN',
          item: target.from,
          on: [binary('=', target.columns.get('id') as SqlExpr, col(link, toColumn))],
        },
        ...target.joins,
      ],
      where: stated,
    };
    const outer = exposed.bound.columns;
    joins.push({
      type: 'LEFT JOIN',
      item: { kind: 'derived', query: inner, alias: j.alias },
      on: [binary('=', outer.get('link_from') as SqlExpr, this.column(j.from, 'id'))],
    });
    const entityColumns = new Map([...outer].filter(([k]) => !k.startsWith('link_')));
    this.bound.set(j.alias, {
      ...exposed.bound,
      columns: entityColumns,
      link: new Map([...linkColumns(link)].map(([k]) => [k, outer.get(`link_${k}`) as SqlExpr])),
    });
  }

  /** Whether an alias's only use is its id (so a reference column can stand in for it). */
  private mayElide(alias: string): boolean {
    return (this.needs.get(alias)?.size ?? 0) === 0;
  }

  /**
   * Joins an entity view. Inner joins, and LEFT joins to a single FROM item, go in as they
   * are; a LEFT join to a view that joins several tables is wrapped in a derived table first.
   */
  private attach(
    alias: string,
    target: EntityView,
    on: SqlExpr[],
    conditions: readonly SqlExpr[],
    left: boolean,
    joins: SqlJoin[],
  ): void {
    if (!left || target.joins.length === 0) {
      // When the link reads a column of a joined ancestor table, that table comes first
      // (joins of a view all meet on the id, so any of its tables can lead).
      const items: SqlJoin[] = [{ type: 'JOIN', item: target.from, on: [] }, ...target.joins];
      const lead = items.findIndex((x) => on.some((c) => readsAlias(c, x.item.alias)));
      if (lead > 0) {
        const first = items[lead] as (typeof items)[number];
        const base = items[0] as (typeof items)[number];
        joins.push({ type: 'JOIN', item: first.item, on: [...on] });
        const key = (item: SqlFromItem): string => (item.kind === 'table' ? keyColumnOf(this.v, item.name) : 'id');
        joins.push({
          type: 'JOIN',
          item: base.item,
          on: [
            binary('=', col(base.item.alias, key(base.item)), col(first.item.alias, key(first.item))),
            ...conditions,
          ],
        });
        for (const x of items.slice(1)) if (x !== first) joins.push(x);
        return;
      }
      joins.push({ type: left ? 'LEFT JOIN' : 'JOIN', item: target.from, on: [...on, ...conditions] });
      joins.push(...target.joins);
      return;
    }
    // The ON clause refers to the view's columns; re-express it over the derived table.
    const exposed = this.expose(alias, target, []);
    const inner: SqlSelect = {
      ...emptySelect(target.from),
      columns: exposed.columns,
      joins: target.joins,
      where: conditions,
    };
    const replacements = new Map(
      [...target.columns].map(([key, sql]) => [printExpr(sql), exposed.bound.columns.get(key) as SqlExpr]),
    );
    const rewrite = (condition: SqlExpr): SqlExpr =>
      rewriteExpr(condition, { expr: (x) => (x.kind === 'column' ? (replacements.get(printExpr(x)) ?? x) : x) });
    joins.push({ type: 'LEFT JOIN', item: { kind: 'derived', query: inner, alias }, on: on.map(rewrite) });
    this.bound.set(alias, exposed.bound);
  }

  /**
   * The columns of an entity view as the select list of a derived table named after its
   * alias, with a boolean column for each subclass test the query makes on it.
   */
  private expose(
    alias: string,
    view: EntityView,
    extra: [string, SqlExpr][],
  ): { columns: SqlSelectColumn[]; bound: Bound } {
    const columns: SqlSelectColumn[] = [];
    const outer = new Map<string, SqlExpr>();
    const names = new Set<string>();
    const add = (sql: SqlExpr, preferred: string): SqlExpr => {
      let name = preferred.replace(/[^a-z0-9_]/g, '_');
      for (let i = 2; names.has(name); i++) name = `${preferred}_${i}`;
      names.add(name);
      columns.push(
        sql.kind === 'column' && sql.table === alias && sql.name === name ? { expr: sql } : { expr: sql, alias: name },
      );
      return col(alias, name);
    };
    for (const [key, sql] of view.columns) outer.set(key, add(sql, key === 'id' ? 'id' : sql.name));
    for (const [key, sql] of extra) outer.set(key, add(sql, key));
    const tests = new Map<string, SqlExpr | undefined>();
    for (const cls of this.isATargets.get(alias) ?? []) {
      const test = view.isA(cls);
      tests.set(cls, test === undefined ? undefined : add(test, `is_${snakeCase(cls)}`));
    }
    const groupExtras = [...tests.values()].filter((t): t is SqlExpr => t !== undefined);
    return { columns, bound: { columns: outer, isA: (cls) => tests.get(cls), groupExtras } };
  }

  private elementsJoin(j: Extract<Join, { kind: 'elements' }>, joins: SqlJoin[]): void {
    const owner = this.scope.attributeOwner(j.of, j.attribute);
    const type = owner.attribute.type;
    const encoding = this.encodingOf(owner.entity, j.attribute);
    const left = j.type === 'left';
    if (encoding === 'table') {
      const table = this.childTable(owner.entity, j.attribute);
      const [ownerColumn, elementColumn] = table.columns.map((c) => c.name) as [string, string];
      joins.push({
        type: left ? 'LEFT JOIN' : 'JOIN',
        item: tableItem(table.name, j.alias),
        on: [binary('=', col(j.alias, ownerColumn), this.column(j.of, 'id'))],
      });
      this.bound.set(j.alias, { columns: new Map(), element: col(j.alias, elementColumn) });
      return;
    }
    const nested = this.column(j.of, needKey({ kind: 'nested', entity: owner.entity, attribute: j.attribute }));
    const item: SqlFromItem = {
      kind: 'function',
      call: call(encoding === 'array' ? 'unnest' : 'jsonb_array_elements_text', nested),
      alias: j.alias,
      column: 'value',
    };
    joins.push(left ? { type: 'LEFT JOIN', item, on: [TRUE] } : { type: 'CROSS JOIN', item, on: [] });
    const element = col(j.alias, 'value');
    this.bound.set(j.alias, { columns: new Map(), element: encoding === 'jsonb' ? castText(element, type) : element });
  }

  private childTable(entity: string, attribute: string): Table {
    const t = this.v.tableByRole(
      (t) => t.role.kind === 'multiValued' && t.role.entity === entity && t.role.attribute === attribute,
    );
    if (!t) throw new CompileError(`variant ${this.v.schema.variant.name}: no child table for ${entity}.${attribute}`);
    return t;
  }

  // ---- expressions and predicates ----

  expr(e: Expr): SqlExpr {
    if (this.substitutions.size > 0) {
      const name = this.substitutions.get(expressionKey(e));
      if (name !== undefined) return name;
    }
    switch (e.kind) {
      case 'attribute': {
        if (e.attribute === 'id') return this.column(e.alias, 'id');
        const owner = this.scope.attributeOwner(e.alias, e.attribute);
        const sql = this.column(e.alias, needKey({ kind: 'attribute', entity: owner.entity, attribute: e.attribute }));
        // A source's enum type orders by its own list and refuses other values: read as the
        // text every other variant stores, it answers as they do.
        return isEnumTyped(this.v.schema.variant, owner.attribute)
          ? { kind: 'cast', arg: sql, type: 'text', colons: true }
          : sql;
      }
      case 'element': {
        const element = this.bound_(e.alias).element;
        if (!element) throw new CompileError(`alias "${e.alias}" is not an elements join`);
        return element;
      }
      case 'linkAttribute': {
        const bound = this.bound_(e.alias);
        const viaLink = bound.link?.get(e.attribute);
        if (viaLink) return viaLink;
        const info = this.info(e.alias);
        if (info.kind !== 'entity' || !info.via)
          throw new CompileError(`alias "${e.alias}" was not joined through a relationship`);
        const fromSide = info.via.direction === 'forward' ? info.via.from : e.alias;
        const sql = this.column(
          fromSide,
          needKey({ kind: 'relationshipAttribute', relationship: info.via.relationship, attribute: e.attribute }),
        );
        // Stored on the `from` row, the value outlives a LEFT join that found no partner.
        return this.nullable.has(e.alias) && fromSide !== e.alias
          ? { kind: 'case', whens: [{ when: isNull(this.column(e.alias, 'id'), true), then: sql }] }
          : sql;
      }
      case 'literal':
        return literal(e.value);
      case 'aggregate':
        return compileAggregate(e, this.expressionCompiler, (p) => this.conjuncts(p));
      case 'setSize': {
        const { encoding, nested, owner } = this.setAccess(e.alias, e.attribute);
        // An absent partner's set is empty: 0, as the child-table count gives.
        const orZero = (sql: SqlExpr): SqlExpr =>
          this.nullable.has(e.alias) ? call('coalesce', sql, literal(0)) : sql;
        if (encoding === 'array') return orZero(call('cardinality', nested));
        if (encoding === 'jsonb') return orZero(call('jsonb_array_length', nested));
        const table = this.childTable(owner, e.attribute);
        const s = this.fresh(table.name);
        const count: SqlSelect = {
          ...emptySelect(tableItem(table.name, s)),
          columns: [{ expr: call('count', STAR) }],
          where: [binary('=', col(s, table.columns[0]?.name as string), this.column(e.alias, 'id'))],
        };
        return { kind: 'subquery', layout: 'line', query: count };
      }
      case 'setArray': {
        // A set has no order: the stored array is the answer as it is, and the comparison
        // of answers sorts array elements (normalizeResult). An absent partner's set is
        // empty, as the child-table form gives.
        const { encoding, nested, owner, type } = this.setAccess(e.alias, e.attribute);
        if (encoding === 'array') return this.nullable.has(e.alias) ? call('coalesce', nested, literal('{}')) : nested;
        const s = this.fresh(encoding === 'table' ? this.childTable(owner, e.attribute).name : e.attribute);
        if (encoding === 'jsonb') {
          const elements: SqlSelect = {
            ...emptySelect({
              kind: 'function',
              call: call('jsonb_array_elements_text', nested),
              alias: s,
              column: 'value',
            }),
            columns: [{ expr: castText(col(s, 'value'), type) }],
          };
          return { kind: 'array', query: { kind: 'subquery', layout: 'line', query: elements } };
        }
        const table = this.childTable(owner, e.attribute);
        const [ownerColumn, elementColumn] = table.columns.map((c) => c.name) as [string, string];
        const elements: SqlSelect = {
          ...emptySelect(tableItem(table.name, s)),
          columns: [{ expr: col(s, elementColumn) }],
          where: [binary('=', col(s, ownerColumn), this.column(e.alias, 'id'))],
        };
        return { kind: 'array', query: { kind: 'subquery', layout: 'line', query: elements } };
      }
      case 'classOf': {
        const bound = this.bound_(e.alias);
        // Where each row names its own class and that is already the answer (every class it
        // can be is listed, ahead of its ancestors), the column is the answer.
        const own = bound.classColumn;
        const first = (cls: string): string | undefined => e.among.find((c) => this.v.index.isAncestorOrSelf(c, cls));
        if (own && !this.nullable.has(e.alias) && own.classes.every((c) => first(c) === c)) return own.sql;
        // An absent partner is of no class, so "always" means "when the partner is there".
        const always = this.nullable.has(e.alias) ? isNull(this.column(e.alias, 'id'), true) : TRUE;
        return { kind: 'case', whens: e.among.map((c) => ({ when: bound.isA?.(c) ?? always, then: literal(c) })) };
      }
      case 'arithmetic':
        return paren(binary(e.op, this.expr(e.left), this.expr(e.right)));
      case 'round':
        return call('round', this.expr(e.arg), literal(e.digits));
      case 'scalarSubquery':
        return (
          this.lifted.get(valueKey(e)) ?? { kind: 'subquery', layout: 'block', query: unnamed(this.select(e.query)) }
        );
      case 'window':
        return windowSql(e, (x) => this.expr(x));
      default:
        if (isAnalytic(e)) return compileAnalyticExpr(e, this.expressionCompiler);
        throw new CompileError(`unknown expression kind ${JSON.stringify((e as { kind?: unknown }).kind)}`);
    }
  }

  private readonly expressionCompiler: ExpressionCompiler = {
    expr: (x) => this.expr(x),
    predicate: (p) => this.predicate(p),
    literal,
    kindOf: (x) => this.kindOf(x),
  };

  /** The kind of value an expression gives, from the attribute types it reads. */
  private kindOf(e: Expr) {
    return valueKind(e, (x) => {
      if (x.kind === 'attribute')
        return x.attribute === 'id'
          ? { kind: 'integer' }
          : this.scope.attributeOwner(x.alias, x.attribute).attribute.type;
      const info = x.kind === 'element' ? this.scope.aliases.get(x.alias) : undefined;
      return info?.kind === 'elements' ? info.attribute.type : undefined;
    });
  }

  private setAccess(
    alias: string,
    attribute: string,
  ): { encoding: 'array' | 'jsonb' | 'table'; nested: SqlExpr; owner: string; type: AttributeType } {
    const owner = this.scope.attributeOwner(alias, attribute);
    const encoding = this.encodingOf(owner.entity, attribute);
    const nested =
      encoding === 'table'
        ? literal(null)
        : this.column(alias, needKey({ kind: 'nested', entity: owner.entity, attribute }));
    return { encoding, nested, owner: owner.entity, type: owner.attribute.type };
  }

  private conjuncts(p: Predicate): SqlExpr[] {
    if (p.kind === 'and') return p.args.flatMap((a) => this.conjuncts(a));
    return [this.predicate(p)];
  }

  predicate(p: Predicate): SqlExpr {
    switch (p.kind) {
      case 'compare':
        return binary(p.op, this.expr(p.left), this.expr(p.right));
      case 'in':
        return { kind: 'in', arg: this.expr(p.expr), values: p.values.map(literal), negated: p.negated === true };
      case 'like':
        return {
          kind: 'like',
          arg: this.expr(p.expr),
          pattern: literal(p.pattern),
          caseInsensitive: p.caseInsensitive === true,
          negated: p.negated === true,
        };
      case 'between':
        return {
          kind: 'between',
          arg: this.expr(p.expr),
          low: this.expr(p.low),
          high: this.expr(p.high),
          negated: p.negated === true,
        };
      case 'isNull':
        return isNull(this.expr(p.expr), p.negated === true);
      case 'contains': {
        const { encoding, nested, owner, type } = this.setAccess(p.alias, p.attribute);
        const value = literal(p.value);
        let sql: SqlExpr;
        if (encoding === 'array') sql = binary('=', value, { kind: 'any', arg: nested });
        else if (encoding === 'jsonb') {
          // Containment compares JSON values: exact for the text and integers stored there.
          if (type.kind === 'text' || type.kind === 'enum' || type.kind === 'integer' || type.kind === 'bigint') {
            sql = binary('@>', nested, {
              kind: 'cast',
              arg: literal(JSON.stringify([p.value])),
              type: 'jsonb',
              colons: true,
            });
          } else {
            const s = this.fresh(p.attribute);
            const probe: SqlSelect = {
              ...emptySelect({
                kind: 'function',
                call: call('jsonb_array_elements_text', nested),
                alias: s,
                column: 'value',
              }),
              columns: [{ expr: literal(1) }],
              where: [binary('=', castText(col(s, 'value'), type), value)],
            };
            sql = { kind: 'exists', negated: false, query: { kind: 'subquery', layout: 'line', query: probe } };
          }
        } else {
          const table = this.childTable(owner, p.attribute);
          const [ownerColumn, elementColumn] = table.columns.map((c) => c.name) as [string, string];
          const s = this.fresh(table.name);
          const probe: SqlSelect = {
            ...emptySelect(tableItem(table.name, s)),
            columns: [{ expr: literal(1) }],
            where: [
              binary('=', col(s, ownerColumn), this.column(p.alias, 'id')),
              binary('=', col(s, elementColumn), value),
            ],
          };
          sql = { kind: 'exists', negated: false, query: { kind: 'subquery', layout: 'line', query: probe } };
        }
        // An absent partner's set contains nothing: false, as the EXISTS forms give.
        if (this.nullable.has(p.alias) && sql.kind !== 'exists') sql = call('coalesce', sql, FALSE);
        return p.negated ? not(sql) : sql;
      }
      case 'isA': {
        let test = this.bound_(p.alias).isA?.(p.entity) ?? TRUE;
        // An absent partner is of no class: false, as the EXISTS forms give.
        const constant = isBoolean(test, true) || isBoolean(test, false);
        if (this.nullable.has(p.alias) && test.kind !== 'exists' && !constant) test = call('coalesce', test, FALSE);
        else if (this.nullable.has(p.alias) && isBoolean(test, true)) test = isNull(this.column(p.alias, 'id'), true);
        return p.negated ? not(paren(test)) : test;
      }
      case 'and':
        return paren({ kind: 'logic', op: 'AND', args: p.args.map((a) => this.predicate(a)) });
      case 'or':
        return paren({ kind: 'logic', op: 'OR', args: p.args.map((a) => this.predicate(a)) });
      case 'not':
        return not(paren(this.predicate(p.arg)));
      case 'exists':
        return {
          kind: 'exists',
          negated: p.negated === true,
          query: { kind: 'subquery', layout: 'block', query: existence(this.select(p.query)) },
        };
      case 'inQuery':
        return {
          kind: 'in',
          arg: this.expr(p.expr),
          values: { kind: 'subquery', layout: 'block', query: unnamed(this.select(p.query)) },
          negated: p.negated === true,
        };
    }
  }
}

/**
 * A subquery used as a value or a test: its column's name is read by nobody, so it has none
 * (unless its own ORDER BY reads it).
 */
function unnamed(q: SqlSelect): SqlSelect {
  if (q.orderBy.length > 0) return q;
  return { ...q, columns: q.columns.map((c) => ({ expr: c.expr })) };
}

/**
 * A subquery asked only whether it has rows: it selects 1, as its columns are never read,
 * unless its GROUP BY names a column by position.
 */
function existence(q: SqlSelect): SqlSelect {
  if (q.distinct || q.orderBy.length > 0 || q.groupBy.some((g) => g.kind === 'literal' && typeof g.value === 'number'))
    return unnamed(q);
  return { ...q, columns: [{ expr: literal(1) }] };
}

/** A JSONB element read as text, cast back to its attribute's type. */
function castText(sql: SqlExpr, type: AttributeType): SqlExpr {
  return type.kind === 'text' || type.kind === 'enum'
    ? sql
    : { kind: 'cast', arg: sql, type: scalarSqlType(type), colons: true };
}

/** Structural equality of two expressions of the query (in canonical order, so their JSON). */
function sameExpr(a: Expr, b: Expr): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
