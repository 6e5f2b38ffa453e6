import type { Attribute } from '../er-model/er-model.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import { CompileError } from '../common/errors.ts';
import { identNeedsQuotes } from '../common/sql-text.ts';
import type { Expr, Join, Predicate, Query, SelectQuery } from './conceptual-query.ts';

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

/**
 * Checks a conceptual query against its domain and resolves every alias. Messages name the
 * offending place: `query.joins[1].relationship: unknown relationship "tagged"`.
 */
export function scopeQuery(index: ErIndex, query: Query): QueryScope {
  const aliases = new Map<string, AliasInfo>();
  const fail = (path: string, message: string): never => {
    throw new CompileError(`${path}: ${message}`);
  };
  const entityOf = (alias: string, path: string): string => {
    const info = aliases.get(alias);
    if (!info) return fail(path, `unknown alias "${alias}"`);
    if (info.kind !== 'entity') return fail(path, `alias "${alias}" is a set element, not an entity`);
    return info.entity;
  };
  const attributeOwner = (alias: string, attribute: string, path = 'query'): { entity: string; attribute: Attribute } => {
    const entity = entityOf(alias, path);
    for (const { owner, attribute: a } of index.allAttributes(entity)) if (a.name === attribute) return { entity: owner.name, attribute: a };
    return fail(path, `${entity} has no attribute "${attribute}"`);
  };
  const declare = (alias: string, info: AliasInfo, path: string): void => {
    if (!ALIAS.test(alias) || identNeedsQuotes(alias)) fail(path, `alias "${alias}" must be a lower-case identifier and not an SQL keyword`);
    if (aliases.has(alias)) fail(path, `alias "${alias}" is used twice`);
    aliases.set(alias, info);
  };
  const knownEntity = (entity: string, path: string): void => {
    if (!index.domain.entities.some((e) => e.name === entity)) fail(path, `unknown entity "${entity}"`);
  };

  const checkExpr = (e: Expr, path: string): void => {
    switch (e.kind) {
      case 'attribute': {
        if (e.attribute === 'id') {
          entityOf(e.alias, path);
          return;
        }
        const { attribute } = attributeOwner(e.alias, e.attribute, path);
        if (attribute.multiValued) fail(path, `"${e.attribute}" is multi-valued: use contains, setSize, setArray or an elements join`);
        return;
      }
      case 'element': {
        const info = aliases.get(e.alias);
        if (info?.kind !== 'elements') fail(path, `alias "${e.alias}" is not an elements join`);
        return;
      }
      case 'linkAttribute': {
        const info = aliases.get(e.alias);
        if (info?.kind !== 'entity' || !info.via) return fail(path, `alias "${e.alias}" was not joined through a relationship`);
        const rel = index.relationship(info.via.relationship);
        if (!(rel.attributes ?? []).some((a) => a.name === e.attribute)) fail(path, `relationship ${rel.name} has no attribute "${e.attribute}"`);
        return;
      }
      case 'literal':
        return;
      case 'aggregate':
        // DISTINCT is for COUNT: MIN and MAX ignore it, and SUM/AVG of distinct values is
        // rarely what a question means (nor does our SQL parser read it).
        if (e.distinct && e.fn !== 'count') fail(path, `DISTINCT applies to count only, not ${e.fn}`);
        if (e.arg) checkExpr(e.arg, `${path}.arg`);
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
        for (const c of e.among) {
          knownEntity(c, path);
          if (!index.isAncestorOrSelf(entity, c)) fail(path, `${c} is not a subclass of ${entity}`);
        }
        return;
      }
      case 'arithmetic':
        checkExpr(e.left, `${path}.left`);
        checkExpr(e.right, `${path}.right`);
        return;
      case 'round':
        checkExpr(e.arg, `${path}.arg`);
        return;
      case 'scalarSubquery':
        if (e.query.select.length !== 1) fail(path, 'a scalar subquery selects exactly one column');
        checkSelect(e.query, `${path}.query`);
        return;
    }
  };

  const checkPredicate = (p: Predicate, path: string): void => {
    switch (p.kind) {
      case 'compare':
        checkExpr(p.left, `${path}.left`);
        checkExpr(p.right, `${path}.right`);
        return;
      case 'in':
        if (p.values.length === 0) fail(path, 'an IN list needs at least one value');
        checkExpr(p.expr, `${path}.expr`);
        return;
      case 'like':
      case 'isNull':
        checkExpr(p.expr, `${path}.expr`);
        return;
      case 'between':
        checkExpr(p.expr, `${path}.expr`);
        checkExpr(p.low, `${path}.low`);
        checkExpr(p.high, `${path}.high`);
        return;
      case 'contains': {
        const { attribute } = attributeOwner(p.alias, p.attribute, path);
        if (!attribute.multiValued) fail(path, `"${p.attribute}" is not multi-valued`);
        return;
      }
      case 'isA': {
        const entity = entityOf(p.alias, path);
        knownEntity(p.entity, path);
        if (!index.isAncestorOrSelf(entity, p.entity)) fail(path, `${p.entity} is not a subclass of ${entity}`);
        return;
      }
      case 'and':
      case 'or':
        p.args.forEach((a, i) => checkPredicate(a, `${path}.args[${i}]`));
        return;
      case 'not':
        checkPredicate(p.arg, `${path}.arg`);
        return;
      case 'exists':
        checkSelect(p.query, `${path}.query`);
        return;
      case 'inQuery':
        checkExpr(p.expr, `${path}.expr`);
        if (p.query.select.length !== 1) fail(path, 'an IN subquery selects exactly one column');
        checkSelect(p.query, `${path}.query`);
        return;
    }
  };

  const checkJoin = (j: Join, path: string): void => {
    if (j.kind === 'elements') {
      const { attribute } = attributeOwner(j.of, j.attribute, `${path}.attribute`);
      if (!attribute.multiValued) fail(`${path}.attribute`, `"${j.attribute}" is not multi-valued`);
      declare(j.alias, { kind: 'elements', of: j.of, owner: attributeOwner(j.of, j.attribute).entity, attribute }, `${path}.alias`);
      return;
    }
    if (!index.domain.relationships.some((r) => r.name === j.relationship)) fail(`${path}.relationship`, `unknown relationship "${j.relationship}"`);
    const rel = index.relationship(j.relationship);
    const fromEnd = j.direction === 'forward' ? rel.from : rel.to;
    const toEnd = j.direction === 'forward' ? rel.to : rel.from;
    const fromEntity = entityOf(j.from, `${path}.from`);
    if (!index.isAncestorOrSelf(fromEnd, fromEntity)) fail(`${path}.from`, `alias "${j.from}" is a ${fromEntity}, not a ${fromEnd} (the ${j.direction} start of ${rel.name})`);
    knownEntity(j.entity, `${path}.entity`);
    if (!index.isAncestorOrSelf(toEnd, j.entity)) fail(`${path}.entity`, `${j.entity} is not a ${toEnd} (the ${j.direction} end of ${rel.name})`);
    declare(j.alias, { kind: 'entity', entity: j.entity, via: j }, `${path}.alias`);
    if (j.on) {
      // Conditions of a join may only look at the alias it introduces.
      const before = new Set(aliases.keys());
      checkPredicate(j.on, `${path}.on`);
      for (const used of aliasesIn(j.on)) if (used !== j.alias && before.has(used)) fail(`${path}.on`, `may only refer to "${j.alias}", not "${used}"`);
    }
  };

  function checkSelect(q: SelectQuery, path: string): void {
    knownEntity(q.from.entity, `${path}.from.entity`);
    declare(q.from.alias, { kind: 'entity', entity: q.from.entity }, `${path}.from.alias`);
    (q.joins ?? []).forEach((j, i) => checkJoin(j, `${path}.joins[${i}]`));
    if (q.where) checkPredicate(q.where, `${path}.where`);
    (q.groupBy ?? []).forEach((e, i) => checkExpr(e, `${path}.groupBy[${i}]`));
    if (q.having) checkPredicate(q.having, `${path}.having`);
    if (q.select.length === 0) fail(`${path}.select`, 'select at least one column');
    const names = new Set<string>();
    q.select.forEach((c, i) => {
      if (!ALIAS.test(c.name)) fail(`${path}.select[${i}].name`, `output name "${c.name}" must be a lower-case identifier`);
      if (names.has(c.name)) fail(`${path}.select[${i}].name`, `output name "${c.name}" is used twice`);
      names.add(c.name);
      checkExpr(c.expr, `${path}.select[${i}].expr`);
    });
    (q.orderBy ?? []).forEach((o, i) => {
      if (o.expr.kind === 'output') {
        if (!names.has(o.expr.name)) fail(`${path}.orderBy[${i}]`, `no output column "${o.expr.name}"`);
      } else checkExpr(o.expr, `${path}.orderBy[${i}].expr`);
    });
    if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 0)) fail(`${path}.limit`, 'expected a non-negative integer');
  }

  function checkQuery(q: Query, path: string): string[] {
    if (q.kind === 'select') {
      checkSelect(q, path);
      return q.select.map((c) => c.name);
    }
    const left = checkQuery(q.left, `${path}.left`);
    const right = checkQuery(q.right, `${path}.right`);
    if (left.length !== right.length) fail(path, `${q.op} of ${left.length} and ${right.length} columns`);
    (q.orderBy ?? []).forEach((o, i) => {
      if (!left.includes(o.name)) fail(`${path}.orderBy[${i}]`, `no output column "${o.name}"`);
    });
    return left;
  }

  checkQuery(query, 'query');
  return { aliases, attributeOwner: (alias, attribute) => attributeOwner(alias, attribute) };
}

/** Every alias a predicate mentions, subqueries included. */
export function aliasesIn(p: Predicate | Expr): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (typeof o['alias'] === 'string' && ('kind' in o)) out.add(o['alias'] as string);
      for (const [k, v] of Object.entries(o)) if (k !== 'alias') walk(v);
    }
  };
  walk(p);
  return out;
}
