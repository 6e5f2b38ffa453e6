import type { Attribute, AttributeType } from '../er-model/er-model.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import { CompileError } from '../common/errors.ts';
import { identNeedsQuotes } from '../common/sql-text.ts';
import type { Expr, Join, Predicate, Query, ScalarLiteral, SelectQuery } from './conceptual-query.ts';

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
  const aliases = new Map<string, AliasInfo>();
  let visible = new Set<string>();
  const fail = (path: string, message: string): never => {
    throw new CompileError(`${path}: ${message}`);
  };
  const oneOf = (value: unknown, allowed: readonly string[], path: string): void => {
    if (typeof value !== 'string' || !allowed.includes(value)) fail(path, `expected one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  };
  const text = (value: unknown, path: string): string => {
    if (typeof value !== 'string') return fail(path, `expected a string, got ${JSON.stringify(value)}`);
    return value;
  };
  const literal = (value: unknown, path: string): void => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
    if (typeof value === 'number' && Number.isFinite(value)) return;
    fail(path, `expected a string, number, boolean or null, got ${JSON.stringify(value)}`);
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
    for (const { owner, attribute: a } of index.allAttributes(entity)) if (a.name === attribute) return { entity: owner.name, attribute: a };
    return fail(path, `${entity} has no attribute "${attribute}"`);
  };
  const attributeOwner = (alias: unknown, attribute: unknown, path: string): { entity: string; attribute: Attribute } => {
    entityOf(alias, path);
    return ownerOf(alias as string, text(attribute, path), path);
  };
  const declare = (alias: unknown, aliasInfo: AliasInfo, path: string): void => {
    const name = text(alias, path);
    if (!ALIAS.test(name) || identNeedsQuotes(name)) fail(path, `alias "${name}" must be a lower-case identifier and not an SQL keyword`);
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
    if (!ok) fail(path, `${JSON.stringify(value)} is not a ${type.kind === 'enum' ? `value of ${type.values.join('|')}` : type.kind}`);
  };
  const literalOf = (e: Expr): ScalarLiteral | null | undefined => (e.kind === 'literal' ? e.value : undefined);

  const checkExpr = (raw: unknown, path: string): void => {
    if (!isRecord(raw)) return void fail(path, `expected an expression, got ${JSON.stringify(raw)}`);
    const e = raw as Expr;
    switch (e.kind) {
      case 'attribute': {
        if (e.attribute === 'id') return void entityOf(e.alias, path);
        const { attribute } = attributeOwner(e.alias, e.attribute, path);
        if (attribute.multiValued) fail(path, `"${e.attribute}" is multi-valued: use contains, setSize, setArray or an elements join`);
        return;
      }
      case 'element':
        if (info(e.alias, path).kind !== 'elements') fail(path, `alias "${e.alias}" is not an elements join`);
        return;
      case 'linkAttribute': {
        const found = info(e.alias, path);
        if (found.kind !== 'entity' || !found.via) return void fail(path, `alias "${e.alias}" was not joined through a relationship`);
        const rel = index.relationship(found.via.relationship);
        if (!(rel.attributes ?? []).some((a) => a.name === e.attribute)) fail(path, `relationship ${rel.name} has no attribute "${String(e.attribute)}"`);
        return;
      }
      case 'literal':
        return literal(e.value, `${path}.value`);
      case 'aggregate':
        oneOf(e.fn, AGGREGATES, `${path}.fn`);
        // DISTINCT is for COUNT: MIN and MAX ignore it, and SUM/AVG of distinct values is
        // rarely what a question means (nor does our SQL parser read it).
        if (e.distinct !== undefined && typeof e.distinct !== 'boolean') fail(`${path}.distinct`, 'expected true or false');
        if (e.distinct && e.fn !== 'count') fail(path, `DISTINCT applies to count only, not ${e.fn}`);
        if (e.arg !== undefined) checkExpr(e.arg, `${path}.arg`);
        else if (e.fn !== 'count') fail(path, `${e.fn} needs an argument`);
        return;
      case 'setSize':
      case 'setArray': {
        const { attribute } = attributeOwner(e.alias, e.attribute, path);
        if (!attribute.multiValued) fail(path, `"${e.attribute}" is not multi-valued`);
        return;
      }
      case 'classOf': {
        const entity = entityOf(e.alias, path);
        if (!Array.isArray(e.among) || e.among.length === 0) fail(`${path}.among`, 'expected a non-empty list of classes');
        e.among.forEach((c, i) => {
          knownEntity(c, `${path}.among[${i}]`);
          if (!index.isAncestorOrSelf(entity, c)) fail(`${path}.among[${i}]`, `${c} is not ${entity} or a subclass of it`);
        });
        return;
      }
      case 'arithmetic':
        oneOf(e.op, ARITHMETIC, `${path}.op`);
        checkExpr(e.left, `${path}.left`);
        checkExpr(e.right, `${path}.right`);
        return;
      case 'round':
        if (!Number.isInteger(e.digits) || e.digits < 0 || e.digits > 20) fail(`${path}.digits`, `expected an integer from 0 to 20, got ${JSON.stringify(e.digits)}`);
        checkExpr(e.arg, `${path}.arg`);
        return;
      case 'scalarSubquery':
        nested(() => {
          checkSelect(e.query, `${path}.query`);
          if (e.query.select.length !== 1) fail(path, 'a scalar subquery selects exactly one column');
        });
        return;
      default:
        fail(`${path}.kind`, `unknown expression kind ${JSON.stringify((e as { kind?: unknown }).kind)}`);
    }
  };

  const checkPredicate = (raw: unknown, path: string): void => {
    if (!isRecord(raw)) return void fail(path, `expected a condition, got ${JSON.stringify(raw)}`);
    const p = raw as Predicate;
    if ('negated' in p && p.negated !== undefined && typeof p.negated !== 'boolean') fail(`${path}.negated`, 'expected true or false');
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
        if (!Array.isArray(p.values) || p.values.length === 0) fail(`${path}.values`, 'an IN list needs at least one value');
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
        for (const [bound, side] of [[p.low, 'low'], [p.high, 'high']] as const) {
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
        if (!index.isAncestorOrSelf(entity, p.entity)) fail(`${path}.entity`, `${p.entity} is not ${entity} or a subclass of it`);
        return;
      }
      case 'and':
      case 'or':
        if (!Array.isArray(p.args) || p.args.length === 0) fail(`${path}.args`, 'expected a non-empty list of conditions');
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
        fail(`${path}.kind`, `unknown condition kind ${JSON.stringify((p as { kind?: unknown }).kind)}`);
    }
  };

  const checkJoin = (raw: unknown, path: string): void => {
    if (!isRecord(raw)) return void fail(path, `expected a join, got ${JSON.stringify(raw)}`);
    const j = raw as Join;
    oneOf(j.type, ['inner', 'left'], `${path}.type`);
    if (j.kind === 'elements') {
      const { attribute, entity } = attributeOwner(j.of, j.attribute, `${path}.attribute`);
      if (!attribute.multiValued) fail(`${path}.attribute`, `"${j.attribute}" is not multi-valued`);
      declare(j.alias, { kind: 'elements', of: j.of, owner: entity, attribute }, `${path}.alias`);
      return;
    }
    if (j.kind !== 'relationship') return void fail(`${path}.kind`, `expected relationship or elements, got ${JSON.stringify((j as { kind?: unknown }).kind)}`);
    oneOf(j.direction, ['forward', 'reverse'], `${path}.direction`);
    if (!index.domain.relationships.some((r) => r.name === j.relationship)) fail(`${path}.relationship`, `unknown relationship "${String(j.relationship)}"`);
    const rel = index.relationship(j.relationship);
    const fromEnd = j.direction === 'forward' ? rel.from : rel.to;
    const toEnd = j.direction === 'forward' ? rel.to : rel.from;
    const fromEntity = entityOf(j.from, `${path}.from`);
    if (!index.isAncestorOrSelf(fromEnd, fromEntity)) fail(`${path}.from`, `alias "${j.from}" is a ${fromEntity}, not a ${fromEnd} (the ${j.direction} start of ${rel.name})`);
    knownEntity(j.entity, `${path}.entity`);
    if (!index.isAncestorOrSelf(toEnd, j.entity)) fail(`${path}.entity`, `${j.entity} is not a ${toEnd} (the ${j.direction} end of ${rel.name})`);
    declare(j.alias, { kind: 'entity', entity: j.entity, via: j }, `${path}.alias`);
    if (j.on !== undefined) {
      // Conditions of a join may only look at the alias it introduces (and their own subqueries).
      const outer = [...visible].filter((a) => a !== j.alias);
      checkPredicate(j.on, `${path}.on`);
      for (const used of aliasesIn(j.on)) if (outer.includes(used)) fail(`${path}.on`, `may only refer to "${j.alias}", not "${used}"`);
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
    if (q.where !== undefined) checkPredicate(q.where, `${path}.where`);
    if (q.groupBy !== undefined && !Array.isArray(q.groupBy)) fail(`${path}.groupBy`, 'expected a list of expressions');
    (q.groupBy ?? []).forEach((e, i) => checkExpr(e, `${path}.groupBy[${i}]`));
    if (q.having !== undefined) checkPredicate(q.having, `${path}.having`);
    if (!Array.isArray(q.select) || q.select.length === 0) fail(`${path}.select`, 'select at least one column');
    if (q.distinct !== undefined && typeof q.distinct !== 'boolean') fail(`${path}.distinct`, 'expected true or false');
    const names = new Set<string>();
    q.select.forEach((c, i) => {
      if (!isRecord(c) || typeof c.name !== 'string' || !ALIAS.test(c.name)) fail(`${path}.select[${i}].name`, `output name ${JSON.stringify(isRecord(c) ? c.name : c)} must be a lower-case identifier`);
      if (names.has(c.name)) fail(`${path}.select[${i}].name`, `output name "${c.name}" is used twice`);
      names.add(c.name);
      checkExpr(c.expr, `${path}.select[${i}].expr`);
    });
    if (q.orderBy !== undefined && !Array.isArray(q.orderBy)) fail(`${path}.orderBy`, 'expected a list');
    (q.orderBy ?? []).forEach((o, i) => {
      if (!isRecord(o) || !isRecord(o.expr)) return void fail(`${path}.orderBy[${i}]`, 'expected {expr, direction}');
      oneOf(o.direction, ['asc', 'desc'], `${path}.orderBy[${i}].direction`);
      if (o.expr.kind === 'output') {
        if (!names.has(String(o.expr.name))) fail(`${path}.orderBy[${i}]`, `no output column "${String(o.expr.name)}"`);
      } else checkExpr(o.expr, `${path}.orderBy[${i}].expr`);
    });
    if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 0)) fail(`${path}.limit`, 'expected a non-negative integer');
  }

  function checkQuery(raw: unknown, path: string): string[] {
    if (!isRecord(raw)) return fail(path, `expected a query, got ${JSON.stringify(raw)}`);
    if (raw['kind'] === 'select') {
      const q = raw as unknown as SelectQuery;
      nested(() => checkSelect(q, path));
      return q.select.map((c) => c.name);
    }
    if (raw['kind'] !== 'set') return fail(`${path}.kind`, `expected select or set, got ${JSON.stringify(raw['kind'])}`);
    const q = raw as unknown as Extract<Query, { kind: 'set' }>;
    oneOf(q.op, SET_OPERATORS, `${path}.op`);
    const left = checkQuery(q.left, `${path}.left`);
    const right = checkQuery(q.right, `${path}.right`);
    if (left.length !== right.length) fail(path, `${q.op} of ${left.length} and ${right.length} columns`);
    (q.orderBy ?? []).forEach((o, i) => {
      oneOf(o.direction, ['asc', 'desc'], `${path}.orderBy[${i}].direction`);
      if (!left.includes(o.name)) fail(`${path}.orderBy[${i}]`, `no output column "${o.name}"`);
    });
    if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 0)) fail(`${path}.limit`, 'expected a non-negative integer');
    return left;
  }

  checkQuery(query, 'query');
  return { aliases, attributeOwner: (alias, attribute) => ownerOf(alias, attribute, 'query') };
}

/** Every alias a predicate mentions, subqueries included. */
export function aliasesIn(p: Predicate | Expr): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (typeof o['alias'] === 'string' && 'kind' in o) out.add(o['alias'] as string);
      for (const [k, v] of Object.entries(o)) if (k !== 'alias') walk(v);
    }
  };
  walk(p);
  return out;
}
