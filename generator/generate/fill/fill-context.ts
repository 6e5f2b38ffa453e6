/**
 * What every step of the content filler shares: the schema graph, the instance, the probe,
 * the random streams, and the aliases taken so far; and the types the steps hand each other
 * (aliases of the query, typed value expressions, what COUNT(*) becomes).
 */
import type { Rng } from '../../common/rng.ts';
import { snakeCase } from '../../er-model/er-index.ts';
import type { ConceptualInstance } from '../../instance/conceptual-instance.ts';
import type { Expr, Query } from '../../query/conceptual-query.ts';
import type { AttributeSlot, RelationshipEdge, SchemaGraph, SlotKind } from '../schema-graph.ts';

/** Runs a conceptual query on the reference variant of the main instance; rows as text. */
export type Probe = (query: Query) => Promise<readonly (readonly (string | null)[])[]>;

export interface FillContext {
  readonly graph: SchemaGraph;
  readonly instance: ConceptualInstance;
  readonly rng: Rng;
  readonly probe: Probe;
}

/** One query being filled: its context, its two random streams and the aliases it has taken. */
export interface Fill {
  readonly ctx: FillContext;
  readonly graph: SchemaGraph;
  readonly rng: Rng;
  /**
   * The analytic choices draw from a stream of their own, so the draws of everything else
   * (entities, joins, columns, values) are what they were before those constructs existed.
   */
  readonly analyticRng: Rng;
  readonly used: Set<string>;
}

export function startFill(ctx: FillContext): Fill {
  return { ctx, graph: ctx.graph, rng: ctx.rng, analyticRng: ctx.rng.fork('analytic'), used: new Set() };
}

export interface EntityAlias {
  readonly alias: string;
  readonly entity: string;
  /** The edge this alias was joined through (none for a FROM alias). */
  readonly via?: RelationshipEdge;
}

export interface ElementAlias {
  readonly alias: string;
  readonly owner: string;
  readonly slot: AttributeSlot;
}

/** What COUNT(*) becomes under a LEFT join: the partner's id or the element, so none counts 0. */
export interface CountTarget {
  readonly expr: Expr;
  readonly label: string;
}

/** A value expression with what the filler knows of it. */
export interface Typed {
  readonly expr: Expr;
  readonly kind: SlotKind | 'id';
  /** A name for an output column. */
  readonly label: string;
  /** The attribute a plain reference reads (none for an id or a computed value). */
  readonly slot?: AttributeSlot;
}

/** Short words an alias made of initials could spell that SQL reserves. */
const RESERVED = new Set([
  'all',
  'and',
  'any',
  'as',
  'asc',
  'at',
  'by',
  'case',
  'cast',
  'desc',
  'do',
  'else',
  'end',
  'for',
  'from',
  'if',
  'in',
  'into',
  'is',
  'join',
  'like',
  'not',
  'null',
  'of',
  'off',
  'on',
  'only',
  'or',
  'some',
  'then',
  'to',
  'true',
  'user',
  'when',
  'with',
]);

/** A new alias of the query for an entity: its initials, numbered when taken or reserved. */
export function newAlias(f: Fill, entity: string): string {
  const base =
    snakeCase(entity)
      .split('_')
      .map((w) => w[0])
      .join('') || 'x';
  let name = RESERVED.has(base) ? `${base}1` : base;
  for (let i = 2; f.used.has(name) || RESERVED.has(name); i++) name = `${base}${i}`;
  f.used.add(name);
  return name;
}

/** Weight of a node or edge: variation squared, so schema-sensitive paths dominate. */
export function weight(variation: number): number {
  return variation * variation;
}
