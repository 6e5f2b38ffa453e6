import type { ErIndex } from '../../er-model/er-index.ts';
import type { Attribute } from '../../er-model/er-model.ts';
import type { Expr, Join, Query } from '../../query/conceptual-query.ts';
import { collect } from './aliases.ts';
import { words } from './english.ts';

/**
 * The value every describer of a query is handed: the model, what has been said so far
 * (mentions, covered constructs, notes) and what the select being described is (its base,
 * its LEFT-joined aliases, what one of its rows is). One per query; the describers of each
 * construct family (joins, expressions, aggregates, predicates, subqueries, frames) read and
 * add to it.
 */
export interface DescribeContext {
  readonly index: ErIndex;
  /** `evidence`: conventions (subtype scope, unmatched rows, zero counts, NULLs) go to the notes, not in brackets. */
  readonly conventions: 'inline' | 'evidence';
  readonly mentions: RequiredMention[];
  readonly covered: Set<string>;
  readonly aliases: Map<string, AliasInfo>;
  /** The outermost outputs, as JSON: what the answer shows (labels nothing shows are not quoted). */
  readonly shown: string;
  /** Aliases sharing a noun get ordinals ("the second channel"), in order of appearance. */
  readonly ordinal: Map<string, number>;
  readonly outputsByName: Map<string, Expr>;
  readonly notes: string[];
  readonly noteSet: Set<string>;
  /** Aliases whose rows a later join can repeat (so a plain count counts repeats). */
  readonly repeats: Set<string>;
  /** LEFT-joined aliases of the select being described. */
  currentLeft: string[];
  /** The join a collapsed query counts the partners of (see select-frame's `collapsible`). */
  collapsed: Extract<Join, { kind: 'relationship' }> | undefined;
  /** The base alias of the select being described, and what one of its rows is, plural ("creators", "creator–channel pairs"). */
  currentBase: string;
  currentRows: string;
  /** Rows or groups, as the windows of the select being described count them. */
  windowUnit: string;
}

/** Answer-deciding facts a question must mention, for the tests (by construct). */
export interface RequiredMention {
  readonly construct: string;
  /** Each alternative is a list of strings all of which must occur (case-insensitive). */
  readonly anyOf: readonly (readonly string[])[];
}

export interface AliasInfo {
  /** The entity alias's entity, or undefined for an element alias. */
  readonly entity?: string;
  /** For an element alias: its owner alias and attribute. */
  readonly element?: { readonly owner: string; readonly attribute: Attribute };
  /** Joined by a LEFT join (directly or below one): may be missing in a row. */
  readonly optional: boolean;
  /** For a relationship-joined alias: the relationship (for link attributes). */
  readonly relationship?: string;
  /** Another alias this one is equated with by id (a correlated subquery's back link). */
  sameAs?: string;
}

/** Whether an expression sits inside an aggregate's argument or a grouped output. */
export interface Grouping {
  readonly grouped: boolean;
}

/** Handlers keyed by node kind: forgetting a kind is a compile error. */
export type Handlers<U extends { kind: string }, C, R> = {
  readonly [K in U['kind']]: (node: Extract<U, { kind: K }>, ctx: C) => R;
};

/**
 * What of an output the answer's rows hold: a window's value, not the keys that partition and
 * order it (a rank within each product type shows no product type).
 */
function valueShown(e: Expr): unknown {
  return e.kind === 'window' ? { kind: e.kind, fn: e.fn, arg: e.arg } : e;
}

/** The context of one query: its aliases collected, ordinals given to aliases that share a noun. */
export function createContext(index: ErIndex, query: Query, conventions: 'inline' | 'evidence'): DescribeContext {
  const d: DescribeContext = {
    index,
    conventions,
    mentions: [],
    covered: new Set(),
    aliases: new Map(),
    shown: JSON.stringify(
      query.kind === 'select' ? query.select.map((o) => ({ ...o, expr: valueShown(o.expr) })) : query,
    ),
    ordinal: new Map(),
    outputsByName: new Map(),
    notes: [],
    noteSet: new Set(),
    repeats: new Set(),
    currentLeft: [],
    collapsed: undefined,
    currentBase: '',
    currentRows: 'rows',
    windowUnit: 'row',
  };
  collect(d, query, false);
  const byNoun = new Map<string, string[]>();
  for (const [alias, info] of d.aliases) {
    if (info.sameAs) continue;
    const noun = info.entity ? index.entity(info.entity).lexicon.singular : elementLexicon(info).singular;
    byNoun.set(noun, [...(byNoun.get(noun) ?? []), alias]);
  }
  for (const list of byNoun.values()) if (list.length > 1) list.forEach((a, i) => d.ordinal.set(a, i));
  return d;
}

/** The nouns of an element alias (its attribute's lexicon, or its name in words). */
export function elementLexicon(info: AliasInfo) {
  const a = info.element?.attribute as Attribute;
  return a.lexicon ?? { singular: words(a.name), plural: `${words(a.name)}s` };
}

/** A whole sentence for the notes, said once. */
export function note(d: DescribeContext, text: string, construct: string): void {
  d.covered.add(construct);
  if (!d.noteSet.has(text)) {
    d.noteSet.add(text);
    d.notes.push(text);
  }
}

/** A fact the question must state: any alternative, all of its strings. */
export function mention(d: DescribeContext, construct: string, ...anyOf: (readonly string[])[]): void {
  d.covered.add(construct);
  d.mentions.push({ construct, anyOf });
}
