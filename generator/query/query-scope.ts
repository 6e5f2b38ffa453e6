import type { Attribute, AttributeType } from '../er-model/er-model.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import { ConfigError } from '../common/errors.ts';
import { identNeedsQuotes } from '../common/sql-text.ts';
import type { Expr, Join, Predicate, Query, ScalarLiteral, SelectQuery } from './conceptual-query.ts';
import { WINDOW_FUNCTIONS, windowIn, windowOrderGap, windowsOf, windowShape } from './window-scope.ts';
import { analyticParts, isAnalytic } from './analytic-expr.ts';
import { checkAnalyticExpr } from './analytic-scope.ts';
import { aliasesIn, aliasOf, canonicalKey, walk, type IrNode } from './walk.ts';

/** What an alias of a conceptual query stands for. */
export type AliasInfo =
  | {
      readonly kind: 'entity';
      readonly entity: string;
      /** The join that introduced the alias, when a relationship join did. */
      readonly via?: Extract<Join, { kind: 'relationship' }>;
    }
  | { readonly kind: 'elements'; readonly of: string; readonly owner: string; readonly attribute: Attribute };

export interface QueryScope {
  readonly aliases: ReadonlyMap<string, AliasInfo>;
  /** The class declaring a single- or multi-valued attribute visible on an entity alias. */
  attributeOwner(alias: string, attribute: string): { readonly entity: string; readonly attribute: Attribute };
}

const ALIAS = /^[a-z][a-z0-9_]*$/;
const COMPARISONS = ['=', '<>', '<', '<=', '>', '>='];
const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'];
const ARITHMETIC = ['+', '-', '*', '/', '||'];
const SET_OPERATORS = ['union', 'union all', 'intersect', 'except'];

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a conceptual query against its domain and resolves every alias. The query may come
 * from JSON, so every field is checked at run time, not only its TypeScript type. Messages
 * name the offending place: `query.joins[1].relationship: unknown relationship "tagged"`.
 *
 * Aliases are unique across the whole query; each is visible in the query that declares it
 * and in that query's subqueries, not in sibling subqueries or the other side of a set
 * operation.
 */
export function scopeQuery(index: ErIndex, query: Query): QueryScope {
  checkDepth(query);
  const aliases = new Map<string, AliasInfo>();
  let visible = new Set<string>();
  // A query is user input: a malformed one is a ConfigError, so the CLI exits 2. Names and
  // values quoted in a message may hold line breaks; escape them so it stays one line.
  const fail = (path: string, message: string): never => {
    throw new ConfigError(`${path}: ${oneLineText(message)}`);
  };
  const oneOf = (value: unknown, allowed: readonly string[], path: string): void => {
    if (typeof value !== 'string' || !allowed.includes(value))
      fail(path, `expected one of ${allowed.join(', ')}, got ${show(value)}`);
  };
  const text = (value: unknown, path: string): string => {
    if (typeof value !== 'string') return fail(path, `expected a string, got ${show(value)}`);
    return value;
  };
  const literal = (value: unknown, path: string): void => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
    if (typeof value === 'number' && Number.isFinite(value)) return;
    fail(path, `expected a string, number, boolean or null, got ${show(value)}`);
  };
  const info = (alias: unknown, path: string): AliasInfo => {
    const name = text(alias, path);
    const found = aliases.get(name);
    if (!found || !visible.has(name)) return fail(path, `unknown alias "${name}"`);
    return found;
  };
  const entityOf = (alias: unknown, path: string): string => {
    const found = info(alias, path);
    if (found.kind !== 'entity') return fail(path, `alias "${String(alias)}" is a set element, not an entity`);
    return found.entity;
  };
  const ownerOf = (alias: string, attribute: string, path: string): { entity: string; attribute: Attribute } => {
    const entity = (aliases.get(alias) as Extract<AliasInfo, { kind: 'entity' }>).entity;
    for (const { owner, attribute: a } of index.allAttributes(entity))
      if (a.name === attribute) return { entity: owner.name, attribute: a };
    return fail(path, `${entity} has no attribute "${attribute}"`);
  };
  const attributeOwner = (
    alias: unknown,
    attribute: unknown,
    path: string,
  ): { entity: string; attribute: Attribute } => {
    entityOf(alias, path);
    return ownerOf(alias as string, text(attribute, path), path);
  };
  const declare = (alias: unknown, aliasInfo: AliasInfo, path: string): void => {
    const name = text(alias, path);
    if (!ALIAS.test(name) || identNeedsQuotes(name))
      fail(path, `alias "${name}" must be a lower-case identifier and not an SQL keyword`);
    if (aliases.has(name)) fail(path, `alias "${name}" is used twice`);
    aliases.set(name, aliasInfo);
    visible.add(name);
  };
  const knownEntity = (entity: unknown, path: string): string => {
    const name = text(entity, path);
    if (!index.domain.entities.some((e) => e.name === name)) fail(path, `unknown entity "${name}"`);
    return name;
  };
  /** A subquery sees the aliases of the queries around it, and keeps its own to itself. */
  const nested = <T>(body: () => T): T => {
    const saved = visible;
    visible = new Set(saved);
    try {
      return body();
    } finally {
      visible = saved;
    }
  };

  /** The attribute type an expression has, when it reads one directly. */
  const typeOf = (e: Expr): AttributeType | undefined => {
    if (e.kind === 'attribute' && e.attribute !== 'id') return ownerOf(e.alias, e.attribute, 'query').attribute.type;
    if (e.kind === 'attribute') return { kind: 'integer' };
    if (e.kind === 'element') {
      const found = aliases.get(e.alias);
      return found?.kind === 'elements' ? found.attribute.type : undefined;
    }
    return undefined;
  };
  /** A literal compared with a value of `type` must be of that type. */
  const literalFits = (type: AttributeType | undefined, value: ScalarLiteral | null, path: string): void => {
    if (type === undefined || value === null) return;
    const ok =
      type.kind === 'integer' || type.kind === 'bigint'
        ? typeof value === 'number' && Number.isInteger(value)
        : type.kind === 'numeric'
          ? typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value))
          : type.kind === 'boolean'
            ? typeof value === 'boolean'
            : type.kind === 'enum'
              ? typeof value === 'string' && type.values.includes(value)
              : typeof value === 'string';
    if (!ok)
      fail(path, `${show(value)} is not a ${type.kind === 'enum' ? `value of ${type.values.join('|')}` : type.kind}`);
  };
  const literalOf = (e: Expr): ScalarLiteral | null | undefined => (e.kind === 'literal' ? e.value : undefined);

  const checkExpr = (raw: unknown, path: string): void => {
    if (!isRecord(raw)) return void fail(path, `expected an expression, got ${show(raw)}`);
    const e = raw as Expr;
    switch (e.kind) {
      case 'attribute': {
        if (e.attribute === 'id') return void entityOf(e.alias, path);
        const { attribute } = attributeOwner(e.alias, e.attribute, path);
        if (attribute.multiValued)
          fail(path, `"${e.attribute}" is multi-valued: use contains, setSize, setArray or an elements join`);
        return;
      }
      case 'element':
        if (info(e.alias, path).kind !== 'elements') fail(path, `alias "${e.alias}" is not an elements join`);
        return;
      case 'linkAttribute': {
        const found = info(e.alias, path);
        if (found.kind !== 'entity' || !found.via)
          return void fail(path, `alias "${e.alias}" was not joined through a relationship`);
        const rel = index.relationship(found.via.relationship);
        if (!(rel.attributes ?? []).some((a) => a.name === e.attribute))
          fail(path, `relationship ${rel.name} has no attribute "${String(e.attribute)}"`);
        return;
      }
      case 'literal':
        return literal(e.value, `${path}.value`);
      case 'aggregate':
        oneOf(e.fn, AGGREGATES, `${path}.fn`);
        if (e.distinct !== undefined && typeof e.distinct !== 'boolean')
          fail(`${path}.distinct`, 'expected true or false');
        if (e.distinct && e.arg === undefined)
          fail(`${path}.distinct`, 'count(*) counts rows: DISTINCT needs an argument');
        if (e.filter !== undefined) {
          checkPredicate(e.filter, `${path}.filter`);
          noAggregate(e.filter, `${path}.filter`);
        }
        if (e.arg !== undefined) {
          checkExpr(e.arg, `${path}.arg`);
          const inner = aggregateIn(e.arg);
          if (inner !== undefined) fail(`${path}.arg${inner}`, 'an aggregate cannot hold another aggregate');
          noWindow(e.arg, `${path}.arg`);
        } else if (e.fn !== 'count') fail(path, `${e.fn} needs an argument`);
        return;
      case 'setSize':
      case 'setArray': {
        const { attribute } = attributeOwner(e.alias, e.attribute, path);
        if (!attribute.multiValued) fail(path, `"${e.attribute}" is not multi-valued`);
        return;
      }
      case 'classOf': {
        const entity = entityOf(e.alias, path);
        if (!Array.isArray(e.among) || e.among.length === 0)
          fail(`${path}.among`, 'expected a non-empty list of classes');
        e.among.forEach((c, i) => {
          knownEntity(c, `${path}.among[${i}]`);
          if (!index.isAncestorOrSelf(entity, c))
            fail(`${path}.among[${i}]`, `${c} is not ${entity} or a subclass of it`);
        });
        return;
      }
      case 'arithmetic':
        oneOf(e.op, ARITHMETIC, `${path}.op`);
        checkExpr(e.left, `${path}.left`);
        checkExpr(e.right, `${path}.right`);
        return;
      case 'round':
        if (!Number.isInteger(e.digits) || e.digits < 0 || e.digits > 20)
          fail(`${path}.digits`, `expected an integer from 0 to 20, got ${show(e.digits)}`);
        checkExpr(e.arg, `${path}.arg`);
        return;
      case 'scalarSubquery':
        nested(() => {
          checkSelect(e.query, `${path}.query`);
          if (e.query.select.length !== 1) fail(path, 'a scalar subquery selects exactly one column');
        });
        return;
      case 'window': {
        oneOf(e.fn, WINDOW_FUNCTIONS, `${path}.fn`);
        const shape = windowShape(e.fn);
        if (shape.arg === 'none' && e.arg !== undefined) fail(`${path}.arg`, `${e.fn} takes no argument`);
        if (shape.arg === 'required' && e.arg === undefined) fail(path, `${e.fn} needs an argument`);
        if (e.arg !== undefined) {
          checkExpr(e.arg, `${path}.arg`);
          noWindow(e.arg, `${path}.arg`);
        }
        if (
          e.offset !== undefined &&
          (!shape.offset || !Number.isInteger(e.offset) || e.offset < 1 || e.offset > 100)
        ) {
          fail(
            `${path}.offset`,
            shape.offset
              ? `expected an integer from 1 to 100, got ${show(e.offset)}`
              : `only lag and lead take an offset`,
          );
        }
        if (e.partitionBy !== undefined && !Array.isArray(e.partitionBy))
          fail(`${path}.partitionBy`, 'expected a list of expressions');
        (e.partitionBy ?? []).forEach((k, i) => {
          checkExpr(k, `${path}.partitionBy[${i}]`);
          noWindow(k, `${path}.partitionBy[${i}]`);
        });
        if (e.orderBy !== undefined && !Array.isArray(e.orderBy))
          fail(`${path}.orderBy`, 'expected a list of {expr, direction}');
        if (shape.needsOrder && (e.orderBy ?? []).length === 0) fail(`${path}.orderBy`, `${e.fn} needs an order`);
        (e.orderBy ?? []).forEach((o, i) => {
          if (!isRecord(o)) return void fail(`${path}.orderBy[${i}]`, 'expected {expr, direction}');
          oneOf(o.direction, ['asc', 'desc'], `${path}.orderBy[${i}].direction`);
          checkExpr(o.expr, `${path}.orderBy[${i}].expr`);
          noWindow(o.expr as Expr, `${path}.orderBy[${i}].expr`);
        });
        return;
      }
      default:
        if (isAnalytic(e))
          return checkAnalyticExpr(e, path, {
            checkExpr,
            checkPredicate,
            fail,
            oneOf,
            literal,
            literalFits: (t, v, p) => literalFits(t, v, p),
            typeOf,
            show,
          });
        fail(`${path}.kind`, `unknown expression kind ${show((e as { kind?: unknown }).kind)}`);
    }
  };

  const checkPredicate = (raw: unknown, path: string): void => {
    if (!isRecord(raw)) return void fail(path, `expected a condition, got ${show(raw)}`);
    const p = raw as Predicate;
    if ('negated' in p && p.negated !== undefined && typeof p.negated !== 'boolean')
      fail(`${path}.negated`, 'expected true or false');
    switch (p.kind) {
      case 'compare': {
        oneOf(p.op, COMPARISONS, `${path}.op`);
        checkExpr(p.left, `${path}.left`);
        checkExpr(p.right, `${path}.right`);
        const l = literalOf(p.left);
        const r = literalOf(p.right);
        if (r !== undefined) literalFits(typeOf(p.left), r, `${path}.right`);
        if (l !== undefined) literalFits(typeOf(p.right), l, `${path}.left`);
        return;
      }
      case 'in':
        if (!Array.isArray(p.values) || p.values.length === 0)
          fail(`${path}.values`, 'an IN list needs at least one value');
        checkExpr(p.expr, `${path}.expr`);
        p.values.forEach((v, i) => {
          literal(v, `${path}.values[${i}]`);
          literalFits(typeOf(p.expr), v, `${path}.values[${i}]`);
        });
        return;
      case 'like':
        text(p.pattern, `${path}.pattern`);
        checkExpr(p.expr, `${path}.expr`);
        return;
      case 'isNull':
        checkExpr(p.expr, `${path}.expr`);
        return;
      case 'between': {
        checkExpr(p.expr, `${path}.expr`);
        checkExpr(p.low, `${path}.low`);
        checkExpr(p.high, `${path}.high`);
        const type = typeOf(p.expr);
        for (const [bound, side] of [
          [p.low, 'low'],
          [p.high, 'high'],
        ] as const) {
          const v = literalOf(bound);
          if (v !== undefined) literalFits(type, v, `${path}.${side}`);
        }
        return;
      }
      case 'contains': {
        const { attribute } = attributeOwner(p.alias, p.attribute, path);
        if (!attribute.multiValued) fail(path, `"${p.attribute}" is not multi-valued`);
        literal(p.value, `${path}.value`);
        if (p.value === null) fail(`${path}.value`, 'a set never contains NULL');
        literalFits(attribute.type, p.value, `${path}.value`);
        return;
      }
      case 'isA': {
        const entity = entityOf(p.alias, path);
        knownEntity(p.entity, `${path}.entity`);
        if (!index.isAncestorOrSelf(entity, p.entity))
          fail(`${path}.entity`, `${p.entity} is not ${entity} or a subclass of it`);
        return;
      }
      case 'and':
      case 'or':
        if (!Array.isArray(p.args) || p.args.length === 0)
          fail(`${path}.args`, 'expected a non-empty list of conditions');
        p.args.forEach((a, i) => checkPredicate(a, `${path}.args[${i}]`));
        return;
      case 'not':
        checkPredicate(p.arg, `${path}.arg`);
        return;
      case 'exists':
        nested(() => checkSelect(p.query, `${path}.query`));
        return;
      case 'inQuery':
        checkExpr(p.expr, `${path}.expr`);
        nested(() => {
          checkSelect(p.query, `${path}.query`);
          if (p.query.select.length !== 1) fail(path, 'an IN subquery selects exactly one column');
        });
        return;
      default:
        fail(`${path}.kind`, `unknown condition kind ${show((p as { kind?: unknown }).kind)}`);
    }
  };

  const checkJoin = (raw: unknown, path: string): void => {
    if (!isRecord(raw)) return void fail(path, `expected a join, got ${show(raw)}`);
    const j = raw as Join;
    oneOf(j.type, ['inner', 'left'], `${path}.type`);
    if (j.kind === 'elements') {
      const { attribute, entity } = attributeOwner(j.of, j.attribute, `${path}.attribute`);
      if (!attribute.multiValued) fail(`${path}.attribute`, `"${j.attribute}" is not multi-valued`);
      declare(j.alias, { kind: 'elements', of: j.of, owner: entity, attribute }, `${path}.alias`);
      return;
    }
    if (j.kind !== 'relationship')
      return void fail(
        `${path}.kind`,
        `expected relationship or elements, got ${show((j as { kind?: unknown }).kind)}`,
      );
    oneOf(j.direction, ['forward', 'reverse'], `${path}.direction`);
    if (!index.domain.relationships.some((r) => r.name === j.relationship))
      fail(`${path}.relationship`, `unknown relationship "${String(j.relationship)}"`);
    const rel = index.relationship(j.relationship);
    const fromEnd = j.direction === 'forward' ? rel.from : rel.to;
    const toEnd = j.direction === 'forward' ? rel.to : rel.from;
    const fromEntity = entityOf(j.from, `${path}.from`);
    if (!index.isAncestorOrSelf(fromEnd, fromEntity))
      fail(
        `${path}.from`,
        `alias "${j.from}" is a ${fromEntity}, not a ${fromEnd} (the ${j.direction} start of ${rel.name})`,
      );
    knownEntity(j.entity, `${path}.entity`);
    if (!index.isAncestorOrSelf(toEnd, j.entity))
      fail(`${path}.entity`, `${j.entity} is not a ${toEnd} (the ${j.direction} end of ${rel.name})`);
    declare(j.alias, { kind: 'entity', entity: j.entity, via: j }, `${path}.alias`);
    if (j.on !== undefined) {
      // Conditions of a join may only look at the alias it introduces (and their own subqueries).
      const outer = [...visible].filter((a) => a !== j.alias);
      checkPredicate(j.on, `${path}.on`);
      noAggregate(j.on, `${path}.on`);
      noWindow(j.on, `${path}.on`);
      for (const used of aliasesIn(j.on))
        if (outer.includes(used)) fail(`${path}.on`, `may only refer to "${j.alias}", not "${used}"`);
    }
  };

  function checkSelect(raw: unknown, path: string): void {
    if (!isRecord(raw) || raw['kind'] !== 'select') return void fail(path, 'expected a select query');
    const q = raw as unknown as SelectQuery;
    if (!isRecord(q.from)) return void fail(`${path}.from`, 'expected {entity, alias}');
    knownEntity(q.from.entity, `${path}.from.entity`);
    declare(q.from.alias, { kind: 'entity', entity: q.from.entity }, `${path}.from.alias`);
    if (q.joins !== undefined && !Array.isArray(q.joins)) fail(`${path}.joins`, 'expected a list of joins');
    (q.joins ?? []).forEach((j, i) => checkJoin(j, `${path}.joins[${i}]`));
    if (q.where !== undefined) {
      checkPredicate(q.where, `${path}.where`);
      noAggregate(q.where, `${path}.where`);
      noWindow(q.where, `${path}.where`);
    }
    if (q.groupBy !== undefined && !Array.isArray(q.groupBy)) fail(`${path}.groupBy`, 'expected a list of expressions');
    (q.groupBy ?? []).forEach((e, i) => {
      checkExpr(e, `${path}.groupBy[${i}]`);
      noAggregate(e, `${path}.groupBy[${i}]`);
      noWindow(e, `${path}.groupBy[${i}]`);
    });
    if (q.having !== undefined) {
      checkPredicate(q.having, `${path}.having`);
      noWindow(q.having, `${path}.having`);
    }
    if (!Array.isArray(q.select) || q.select.length === 0) fail(`${path}.select`, 'select at least one column');
    if (q.distinct !== undefined && typeof q.distinct !== 'boolean') fail(`${path}.distinct`, 'expected true or false');
    const names = new Set<string>();
    q.select.forEach((c, i) => {
      if (!isRecord(c) || typeof c.name !== 'string' || !ALIAS.test(c.name))
        fail(
          `${path}.select[${i}].name`,
          `output name ${show(isRecord(c) ? c.name : c)} must be a lower-case identifier`,
        );
      if (names.has(c.name)) fail(`${path}.select[${i}].name`, `output name "${c.name}" is used twice`);
      names.add(c.name);
      checkExpr(c.expr, `${path}.select[${i}].expr`);
    });
    if (q.orderBy !== undefined && !Array.isArray(q.orderBy)) fail(`${path}.orderBy`, 'expected a list');
    (q.orderBy ?? []).forEach((o, i) => {
      if (!isRecord(o) || !isRecord(o.expr)) return void fail(`${path}.orderBy[${i}]`, 'expected {expr, direction}');
      oneOf(o.direction, ['asc', 'desc'], `${path}.orderBy[${i}].direction`);
      if (o.nulls !== undefined) oneOf(o.nulls, ['first', 'last'], `${path}.orderBy[${i}].nulls`);
      if (o.expr.kind === 'output') {
        if (!names.has(String(o.expr.name))) fail(`${path}.orderBy[${i}]`, `no output column ${show(o.expr.name)}`);
      } else {
        checkExpr(o.expr, `${path}.orderBy[${i}].expr`);
        // PostgreSQL: "for SELECT DISTINCT, ORDER BY expressions must appear in select list".
        const key = canonical(o.expr);
        if (q.distinct === true && !q.select.some((c) => canonical(c.expr) === key)) {
          fail(
            `${path}.orderBy[${i}].expr`,
            'a distinct query can only be ordered by what it selects: select this expression, or order by an output column',
          );
        }
      }
    });
    if (q.limit !== undefined && (!Number.isSafeInteger(q.limit) || q.limit < 0))
      fail(`${path}.limit`, `expected a non-negative integer up to 2^53 - 1, got ${show(q.limit)}`);
    if (q.qualify !== undefined) checkQualify(q, path);
    checkGrouping(q, path);
    const grouped = isGrouped(q);
    for (const w of windowsOf(q, path)) {
      const gap = windowOrderGap(q, w.window, canonical, grouped);
      if (gap !== undefined) fail(w.path, gap);
    }
  }

  /** Top-N per group: a window compared with a number, on the outermost query only. */
  function checkQualify(q: SelectQuery, path: string): void {
    const k = q.qualify as NonNullable<SelectQuery['qualify']>;
    if (path !== 'query') fail(`${path}.qualify`, 'only the outermost query may qualify its rows');
    if (!isRecord(k) || !isRecord(k.window) || k.window.kind !== 'window')
      return void fail(`${path}.qualify`, 'expected {window, op, value} with a window expression');
    checkExpr(k.window, `${path}.qualify.window`);
    oneOf(k.op, COMPARISONS, `${path}.qualify.op`);
    if (!Number.isSafeInteger(k.value)) fail(`${path}.qualify.value`, `expected an integer, got ${show(k.value)}`);
    // The filter runs on a derived table of the outputs: order by what it holds.
    const outputs = new Set(q.select.map((c) => canonical(c.expr)));
    (q.orderBy ?? []).forEach((o, i) => {
      if (o.expr.kind !== 'output' && !outputs.has(canonical(o.expr)))
        fail(
          `${path}.orderBy[${i}].expr`,
          'a query with qualify is ordered by its output columns: select this expression, or order by an output',
        );
    });
  }

  /**
   * In a grouped query (GROUP BY or an aggregate), every value read outside an aggregate must
   * be a grouping expression, or read from an alias whose id is grouped: the compiler then
   * groups by all of that alias's columns, which depend on the id. Anything else PostgreSQL
   * refuses ("must appear in the GROUP BY clause").
   */
  function checkGrouping(q: SelectQuery, path: string): void {
    if (!isGrouped(q)) return;
    const local = new Set([q.from.alias, ...(q.joins ?? []).map((j) => j.alias)]);
    const keys = new Set((q.groupBy ?? []).map(canonical));
    const byId = new Set(
      (q.groupBy ?? []).flatMap((e) => (e.kind === 'attribute' && e.attribute === 'id' ? [e.alias] : [])),
    );
    const name = (node: { alias: string; attribute?: unknown; kind: string }): string =>
      node.kind === 'element'
        ? `element ${node.alias}`
        : typeof node.attribute === 'string'
          ? `${node.alias}.${node.attribute}`
          : `${node.kind} of ${node.alias}`;
    const ungrouped = (where: string, node: { alias: string; attribute?: unknown; kind: string }): never =>
      fail(
        where,
        `${name(node)} is neither grouped nor inside an aggregate: add it to groupBy${node.kind === 'element' || node.kind === 'linkAttribute' ? '' : `, or group by ${node.alias}.id`}`,
      );
    /** Any mention of a local alias deep inside a subquery or condition. */
    const within = (node: IrNode, where: string): void =>
      walk(node, (n) => {
        const alias = aliasOf(n);
        if (
          alias !== undefined &&
          local.has(alias) &&
          !keys.has(canonical(n)) &&
          (!byId.has(alias) || n.kind === 'element' || n.kind === 'linkAttribute')
        ) {
          ungrouped(where, n as { alias: string; kind: string });
        }
      });
    const expr = (e: Expr, where: string): void => {
      if (keys.has(canonical(e))) return;
      switch (e.kind) {
        case 'aggregate':
        case 'literal':
          return;
        case 'arithmetic':
          expr(e.left, `${where}.left`);
          expr(e.right, `${where}.right`);
          return;
        case 'round':
          expr(e.arg, `${where}.arg`);
          return;
        case 'scalarSubquery':
          within(e.query, `${where}.query`);
          return;
        case 'window':
          if (e.arg) expr(e.arg, `${where}.arg`);
          (e.partitionBy ?? []).forEach((k, i) => expr(k, `${where}.partitionBy[${i}]`));
          (e.orderBy ?? []).forEach((o, i) => expr(o.expr, `${where}.orderBy[${i}].expr`));
          return;
        default:
          if (isAnalytic(e)) {
            const parts = analyticParts(e);
            parts.exprs.forEach((x, i) => expr(x, `${where}.parts[${i}]`));
            parts.predicates.forEach((p, i) => predicate(p, `${where}.conditions[${i}]`));
            return;
          }
          within(e, where);
      }
    };
    const predicate = (p: Predicate, where: string): void => {
      switch (p.kind) {
        case 'compare':
          expr(p.left, `${where}.left`);
          expr(p.right, `${where}.right`);
          return;
        case 'between':
          expr(p.expr, `${where}.expr`);
          expr(p.low, `${where}.low`);
          expr(p.high, `${where}.high`);
          return;
        case 'in':
        case 'like':
        case 'isNull':
          expr(p.expr, `${where}.expr`);
          return;
        case 'inQuery':
          expr(p.expr, `${where}.expr`);
          within(p.query, `${where}.query`);
          return;
        case 'and':
        case 'or':
          p.args.forEach((a, i) => predicate(a, `${where}.args[${i}]`));
          return;
        case 'not':
          predicate(p.arg, `${where}.arg`);
          return;
        default:
          within(p, where);
      }
    };
    q.select.forEach((c, i) => expr(c.expr, `${path}.select[${i}].expr`));
    if (q.qualify) expr(q.qualify.window, `${path}.qualify.window`);
    if (q.having !== undefined) predicate(q.having, `${path}.having`);
    (q.orderBy ?? []).forEach((o, i) => {
      if (o.expr.kind !== 'output') expr(o.expr, `${path}.orderBy[${i}].expr`);
    });
  }

  function checkQuery(raw: unknown, path: string): string[] {
    if (!isRecord(raw)) return fail(path, `expected a query, got ${show(raw)}`);
    if (raw['kind'] === 'select') {
      const q = raw as unknown as SelectQuery;
      nested(() => checkSelect(q, path));
      return q.select.map((c) => c.name);
    }
    if (raw['kind'] !== 'set') return fail(`${path}.kind`, `expected select or set, got ${show(raw['kind'])}`);
    const q = raw as unknown as Extract<Query, { kind: 'set' }>;
    oneOf(q.op, SET_OPERATORS, `${path}.op`);
    const left = checkQuery(q.left, `${path}.left`);
    const right = checkQuery(q.right, `${path}.right`);
    if (left.length !== right.length) fail(path, `${q.op} of ${left.length} and ${right.length} columns`);
    if (q.orderBy !== undefined && !Array.isArray(q.orderBy))
      fail(`${path}.orderBy`, `expected a list of {name, direction}, got ${show(q.orderBy)}`);
    (q.orderBy ?? []).forEach((o: unknown, i) => {
      if (!isRecord(o)) return void fail(`${path}.orderBy[${i}]`, `expected {name, direction}, got ${show(o)}`);
      oneOf(o['direction'], ['asc', 'desc'], `${path}.orderBy[${i}].direction`);
      if (typeof o['name'] !== 'string' || !left.includes(o['name']))
        fail(`${path}.orderBy[${i}].name`, `no output column ${show(o['name'])} (outputs: ${left.join(', ')})`);
    });
    if (q.limit !== undefined && (!Number.isSafeInteger(q.limit) || q.limit < 0))
      fail(`${path}.limit`, `expected a non-negative integer up to 2^53 - 1, got ${show(q.limit)}`);
    return left;
  }

  /** Windows exist once rows are grouped: PostgreSQL refuses them in WHERE, GROUP BY, HAVING, ON and inside aggregates. */
  function noWindow(node: Predicate | Expr, path: string): void {
    const at = windowIn(node);
    if (at !== undefined)
      fail(`${path}${at}`, 'a window function is not allowed here (only in select, orderBy and qualify)');
  }

  /** Rows are filtered and grouped before aggregates exist: PostgreSQL refuses them there. */
  function noAggregate(node: Predicate | Expr, path: string): void {
    const at = aggregateIn(node);
    if (at !== undefined)
      fail(
        `${path}${at}`,
        'an aggregate is not allowed here (only in select, having and orderBy); filter groups with having',
      );
  }

  checkQuery(query, 'query');
  return { aliases, attributeOwner: (alias, attribute) => ownerOf(alias, attribute, 'query') };
}

/** Nesting a query this deep is no question anyone asks; deeper would overflow the stack. */
export const MAX_QUERY_DEPTH = 100;

/**
 * Rejects a query nested deeper than MAX_QUERY_DEPTH before the recursive checks run, by
 * walking it with an explicit stack.
 */
function checkDepth(query: unknown): void {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: query, depth: 0, path: 'query' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop() as { value: unknown; depth: number; path: string };
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_QUERY_DEPTH) {
      const shown = path.length > 80 ? `${path.slice(0, 80)}…` : path;
      throw new ConfigError(`${shown}: the query is nested deeper than ${MAX_QUERY_DEPTH} levels`);
    }
    for (const [key, child] of Object.entries(value)) {
      stack.push({ value: child, depth: depth + 1, path: Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}` });
    }
  }
}

/** A value as a message quotes it: JSON, cut short, so one odd value cannot flood a line. */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Control characters escaped, so a message is one line whatever it quotes. */
function oneLineText(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Whether a query groups its rows: a GROUP BY, a HAVING, or an aggregate where values are read. */
export function isGrouped(q: SelectQuery): boolean {
  const orderExprs = (q.orderBy ?? []).map((o) => o.expr).filter((e): e is Expr => e.kind !== 'output');
  const windows = q.qualify ? [q.qualify.window] : [];
  return (
    (q.groupBy ?? []).length > 0 ||
    q.having !== undefined ||
    [...q.select.map((c) => c.expr), ...orderExprs, ...windows].some(hasAggregate)
  );
}

/** An aggregate at this level of a query (not inside a subquery). */
export function hasAggregate(e: Expr): boolean {
  switch (e.kind) {
    case 'aggregate':
      return true;
    case 'arithmetic':
      return hasAggregate(e.left) || hasAggregate(e.right);
    case 'round':
      return hasAggregate(e.arg);
    case 'window':
      return [e.arg, ...(e.partitionBy ?? []), ...(e.orderBy ?? []).map((o) => o.expr)].some(
        (x) => x !== undefined && hasAggregate(x),
      );
    default:
      // A CASE may test an aggregate in a condition: look at every part of this level.
      return isAnalytic(e) && aggregateIn(e) !== undefined;
  }
}

/** A key for comparing expressions that ignores the order keys were written in (walk.ts's canonicalKey). */
export const canonical: (value: unknown) => string = canonicalKey;

/**
 * The relative path of the first aggregate of this query level inside an expression or
 * condition, if any; subqueries are levels of their own and are not entered.
 */
function aggregateIn(node: unknown, at = ''): string | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = aggregateIn(node[i], `${at}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const record = node as Record<string, unknown>;
  if (record['kind'] === 'aggregate') return at;
  if (record['kind'] === 'scalarSubquery' || record['kind'] === 'exists') return undefined;
  for (const [key, value] of Object.entries(record)) {
    if (key === 'query') continue;
    const found = aggregateIn(value, `${at}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
