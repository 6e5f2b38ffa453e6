/**
 * The grammar's rules for expressions, read off the typed SQL AST: every `Expr` kind has a
 * production (`x_*` nonterminals), so any expression the adapter reads has a derivation.
 * The clause rules of `skeleton-extractor.ts` keep their Spider-shaped forms and hand an
 * item to these rules when their own forms do not cover it (a CASE in the select list, a
 * function on the left of a comparison, `NULLS LAST`, a window call, …).
 *
 * Round trip: a skeleton sampled from the grammar and printed as SQL must read back to the
 * same skeleton text, whichever rules made it. So placeholder types depend only on the
 * expression's own local shape, by the same conventions the clause rules use:
 * - a column compared with a number literal is `<column:numeric>`, with a string
 *   `<column:text>`, with anything else `<column>`; a column operand of arithmetic is
 *   numeric, of `||` or LIKE text; elsewhere `<column>`;
 * - literals are `<value:number>` / `<value:text>` (a LIKE pattern `<value:pattern>`);
 * - an operand that is itself an operator expression is parenthesized, nothing else is;
 * - `NOT` over LIKE, IN, BETWEEN, EXISTS or IS NULL is read as the negated form.
 * The nonterminal classes (`x_nonlit`, `x_noncol`, …) exist so that the grammar cannot
 * write `<column> = <value:number>` where the convention says `<column:numeric>`.
 *
 * Function names become typed placeholders by what they compute (`<fn:text>`,
 * `<fn:numeric>`, `<fn:date>`, `<fn:window>`, `<fn:agg>`, `<fn>`); COALESCE, NULLIF,
 * GREATEST and LEAST stay terminals, since they are structure (a guarded division, a
 * default). A CAST's type is `<type:numeric|text|date|boolean>` (or `<type>`).
 */
import type { Expr, FrameBound, OrderItem, Query, WindowCall } from '../sql/sql-ast.ts';
import type { Derivation } from './derivation.ts';
import { derivation } from './derivation.ts';
import { fail, kw, list, node, node as makeNode, ph, type Part } from './derivation-builder.ts';
import { deriveQuery, whereCondition } from './skeleton-extractor.ts';

/** Function names by what they compute; a name in none of these is `<fn>`. */
const FUNCTION_KINDS: Readonly<Record<string, readonly string[]>> = {
  text: [
    'lower',
    'upper',
    'initcap',
    'length',
    'char_length',
    'character_length',
    'octet_length',
    'concat',
    'concat_ws',
    'substring',
    'substr',
    'position',
    'strpos',
    'left',
    'right',
    'trim',
    'btrim',
    'ltrim',
    'rtrim',
    'lpad',
    'rpad',
    'replace',
    'reverse',
    'repeat',
    'split_part',
    'starts_with',
    'translate',
    'regexp_replace',
    'regexp_match',
    'regexp_count',
    'to_char',
    'format',
    'instr',
  ],
  numeric: [
    'abs',
    'round',
    'trunc',
    'ceil',
    'ceiling',
    'floor',
    'sign',
    'sqrt',
    'cbrt',
    'power',
    'pow',
    'exp',
    'ln',
    'log',
    'log10',
    'mod',
    'div',
    'width_bucket',
    'to_number',
    'cardinality',
    'array_length',
    'random',
  ],
  date: [
    'date_trunc',
    'date_part',
    'age',
    'make_date',
    'make_timestamp',
    'make_interval',
    'to_date',
    'to_timestamp',
    'now',
    'justify_days',
    'julianday',
    'strftime',
    'date',
    'datetime',
    'year',
    'month',
    'day',
  ],
  window: [
    'row_number',
    'rank',
    'dense_rank',
    'percent_rank',
    'cume_dist',
    'ntile',
    'lag',
    'lead',
    'first_value',
    'last_value',
    'nth_value',
  ],
  agg: [
    'array_agg',
    'string_agg',
    'group_concat',
    'bool_and',
    'bool_or',
    'every',
    'stddev',
    'stddev_pop',
    'stddev_samp',
    'variance',
    'var_pop',
    'var_samp',
    'corr',
    'percentile_cont',
    'percentile_disc',
    'mode',
    'jsonb_agg',
    'json_agg',
  ],
};
const KIND_OF_FUNCTION = new Map(
  Object.entries(FUNCTION_KINDS).flatMap(([kind, names]) => names.map((n) => [n, kind] as const)),
);

/** Functions kept as terminals: they are the structure of the expression, not its content. */
const STRUCTURAL_FUNCTIONS = new Set(['coalesce', 'nullif', 'greatest', 'least']);

const TYPE_KINDS: readonly (readonly [RegExp, string])[] = [
  [
    /^(INT|INTEGER|BIGINT|SMALLINT|INT2|INT4|INT8|REAL|FLOAT|FLOAT4|FLOAT8|DOUBLE|DOUBLE PRECISION|NUMERIC|DECIMAL)\b/u,
    'numeric',
  ],
  [/^(TEXT|VARCHAR|CHAR|CHARACTER|CHARACTER VARYING|STRING)\b/u, 'text'],
  [/^(DATE|TIMESTAMP|TIMESTAMPTZ|TIME|TIMETZ|INTERVAL|DATETIME)\b/u, 'date'],
  [/^(BOOLEAN|BOOL)\b/u, 'boolean'],
];

/** The placeholder type of a CAST's target type, or null for any other type. */
export function typeKind(type: string): string | null {
  return TYPE_KINDS.find(([pattern]) => pattern.test(type))?.[1] ?? null;
}

/** The placeholder type of a function name, or null for `<fn>`. */
export function functionKind(name: string): string | null {
  return KIND_OF_FUNCTION.get(name) ?? null;
}

/** Kinds printed with an operator between or before operands: parenthesized as operands. */
export const COMPOUND_KINDS: ReadonlySet<Expr['kind']> = new Set<Expr['kind']>([
  'comparison',
  'arithmetic',
  'logical',
  'not',
  'negate',
  'like',
  'in-list',
  'in-subquery',
  'exists',
  'between',
  'is-null',
  'operator',
]);

const isLiteral = (e: Expr): boolean =>
  e.kind === 'number' || e.kind === 'string' || (e.kind === 'negate' && e.operand.kind === 'number');

/** Negated forms that NOT folds into. */
function foldNot(e: Expr): Expr | null {
  if (e.kind !== 'not') return null;
  const inner = e.operand;
  switch (inner.kind) {
    case 'like':
    case 'in-list':
    case 'in-subquery':
    case 'between':
    case 'exists':
    case 'is-null':
      return { ...inner, negated: !inner.negated };
    default:
      return null;
  }
}

/** Any expression in a slot that needs no parentheses (a select item, an argument). */
export function xAny(e: Expr): Derivation {
  if (e.kind === 'column') return node('x_any', ph('column'));
  if (e.kind === 'number' || (e.kind === 'negate' && e.operand.kind === 'number'))
    return node('x_any', ph('value', 'number'));
  if (e.kind === 'string') return node('x_any', ph('value', 'text'));
  return node('x_any', xOther(e));
}

/** Any expression as an operand: an operator expression gets parentheses. */
function xAnyOp(e: Expr): Derivation {
  if (e.kind === 'column') return node('x_any_op', ph('column'));
  if (isLiteral(e)) return node('x_any_op', ph('value', e.kind === 'string' ? 'text' : 'number'));
  return node('x_any_op', xOtherOp(e));
}

/** An operand that is not a literal (a column is `<column>`). */
function xNonLitOp(e: Expr): Derivation {
  if (isLiteral(e)) fail('a literal where the grammar expects a non-literal', e);
  return node('x_nonlit_op', e.kind === 'column' ? ph('column') : xOtherOp(e));
}

/** An operand that is not a column. */
function xNonColOp(e: Expr): Derivation {
  if (e.kind === 'column') fail('a column where the grammar expects a non-column', e);
  if (isLiteral(e)) return node('x_noncol_op', ph('value', e.kind === 'string' ? 'text' : 'number'));
  return node('x_noncol_op', xOtherOp(e));
}

/** An operand whose columns are numeric (arithmetic). */
export function xNumOp(e: Expr): Derivation {
  if (e.kind === 'column') return node('x_num_op', ph('column', 'numeric'));
  if (isLiteral(e)) return node('x_num_op', ph('value', e.kind === 'string' ? 'text' : 'number'));
  return node('x_num_op', xOtherOp(e));
}

/** An operand whose columns are text (`||`, LIKE). */
function xTextOp(e: Expr): Derivation {
  if (e.kind === 'column') return node('x_text_op', ph('column', 'text'));
  if (isLiteral(e)) return node('x_text_op', ph('value', e.kind === 'string' ? 'text' : 'number'));
  return node('x_text_op', xOtherOp(e));
}

/** A LIKE pattern: a string literal is `<value:pattern>`. */
function xPatternOp(e: Expr): Derivation {
  if (e.kind === 'string') return node('x_pattern_op', ph('value', 'pattern'));
  if (e.kind === 'column') return node('x_pattern_op', ph('column'));
  if (isLiteral(e)) return node('x_pattern_op', ph('value', 'number'));
  return node('x_pattern_op', xOtherOp(e));
}

/** Neither a column nor a literal, in a slot without parentheses. */
function xOther(e: Expr): Derivation {
  if (e.kind === 'subquery') return node('x_other', ...valueQuery(e.query));
  return COMPOUND_KINDS.has(e.kind) ? node('x_other', xCompound(e)) : node('x_other', xAtom(e));
}

/** Neither a column nor a literal, as an operand. */
function xOtherOp(e: Expr): Derivation {
  if (e.kind === 'subquery') return node('x_other_op', ...valueQuery(e.query));
  return COMPOUND_KINDS.has(e.kind) ? node('x_other_op', kw('('), xCompound(e), kw(')')) : node('x_other_op', xAtom(e));
}

function valueQuery(query: Query): Part[] {
  return [kw('('), deriveQuery(query, 'subquery'), kw(')')];
}

/** An expression that is one unit without parentheses: a call, CASE, CAST, a keyword value, … */
export function xAtom(e: Expr): Derivation {
  switch (e.kind) {
    case 'null':
      return node('x_atom', kw('NULL'));
    case 'boolean':
      return node('x_atom', kw(e.value ? 'TRUE' : 'FALSE'));
    case 'star':
      return node('x_atom', kw('*'));
    case 'aggregate':
    case 'function':
    case 'filtered':
      return node('x_atom', xCall(e));
    case 'window':
      return node('x_atom', xWindow(e));
    case 'case': {
      const whens = e.whens.map((w) =>
        node('x_when', kw('WHEN'), e.operand ? xAny(w.when) : whereCondition(w.when), kw('THEN'), xAny(w.then)),
      );
      const parts: Part[] = [kw('CASE')];
      if (e.operand) parts.push(xAny(e.operand));
      parts.push(list('x_when_list', whens, null));
      if (e.else) parts.push(kw('ELSE'), xAny(e.else));
      parts.push(kw('END'));
      return node('x_atom', node('x_case', ...parts));
    }
    case 'cast':
      // The parser reads an operator expression inside CAST( … AS) and EXTRACT( … FROM …)
      // only in parentheses.
      return node('x_atom', kw('CAST'), kw('('), xAnyOp(e.operand), kw('AS'), ph('type', typeKind(e.type)), kw(')'));
    case 'extract':
      return node('x_atom', kw('EXTRACT'), kw('('), kw(e.field), kw('FROM'), xAnyOp(e.source), kw(')'));
    case 'interval':
      return e.unit
        ? node('x_atom', kw('INTERVAL'), ph('value', 'interval'), kw(e.unit))
        : node('x_atom', kw('INTERVAL'), ph('value', 'interval'));
    case 'clock':
      return node('x_atom', kw(e.name));
    case 'array':
      return e.items.length === 0
        ? fail('an empty ARRAY[]', e)
        : node('x_atom', kw('ARRAY'), kw('['), xList(e.items), kw(']'));
    case 'array-subquery':
      return node('x_atom', kw('ARRAY'), kw('('), deriveQuery(e.query), kw(')'));
    default:
      return fail(`expression ${e.kind} as a unit`, e);
  }
}

function xList(items: readonly Expr[]): Derivation {
  return list('x_list', items.map(xAny));
}

/**
 * An aggregate or function call, possibly with FILTER. Under OVER the call is an `x_wcall`,
 * whose rules come from window calls alone (no DISTINCT, no NULLIF(…) OVER).
 */
function xCall(e: Expr, lhs = 'x_call'): Derivation {
  const node = (_: string, ...parts: Part[]): Derivation => makeNode(lhs, ...parts);
  if (e.kind === 'filtered')
    return node('x_call', xCall(e.call), kw('FILTER'), kw('('), kw('WHERE'), whereCondition(e.where), kw(')'));
  if (e.kind === 'aggregate') {
    if (e.arg.kind === 'star') {
      if (e.name !== 'count' || e.distinct) fail('an aggregate of * other than COUNT(*)', e);
      return node('x_call', kw('COUNT'), kw('('), kw('*'), kw(')'));
    }
    return e.distinct
      ? node('x_call', ph('agg'), kw('('), kw('DISTINCT'), xDistinctArg(e.arg), kw(')'))
      : node('x_call', ph('agg'), kw('('), xAny(e.arg), kw(')'));
  }
  if (e.kind !== 'function') return fail('a call', e);
  // NULLIF takes exactly two arguments in PostgreSQL's grammar itself: its rule says so.
  if (e.name === 'nullif') {
    const [a, b, ...rest] = e.args;
    if (!a || !b || rest.length > 0 || e.distinct || e.orderBy.length > 0)
      fail('NULLIF without exactly two arguments', e);
    return node('x_call', kw('NULLIF'), kw('('), xAny(a), kw(','), xAny(b), kw(')'));
  }
  const name: Part = STRUCTURAL_FUNCTIONS.has(e.name) ? kw(e.name.toUpperCase()) : ph('fn', functionKind(e.name));
  const inside: Part[] = [];
  if (e.distinct) inside.push(kw('DISTINCT'));
  if (e.args.length > 0) inside.push(xList(e.args));
  else if (e.distinct) fail('DISTINCT without arguments', e);
  if (e.orderBy.length > 0) inside.push(kw('ORDER'), kw('BY'), xOrderList(e.orderBy));
  return node('x_call', name, kw('('), ...inside, kw(')'));
}

/**
 * What `<agg> ( DISTINCT …)` takes: a column, a literal or a unit. The parser reads
 * `DISTINCT (` as a call of a function named DISTINCT, so nothing that may start with a
 * parenthesis (a subquery, an operator expression) has a rule here.
 */
function xDistinctArg(e: Expr): Derivation {
  if (e.kind === 'column') return node('x_distinct_arg', ph('column'));
  if (isLiteral(e)) return node('x_distinct_arg', ph('value', e.kind === 'string' ? 'text' : 'number'));
  if (e.kind === 'subquery' || COMPOUND_KINDS.has(e.kind))
    fail('DISTINCT over an operator expression or a subquery', e);
  return node('x_distinct_arg', xAtom(e));
}

/** A PARTITION BY or window ORDER BY key: a column or a unit (a call, CASE, CAST, …). */
function xWindowKey(e: Expr): Derivation {
  if (e.kind === 'column') return node('x_window_key', ph('column'));
  // The parser reads little else there (not CAST, not a literal).
  if (e.kind !== 'aggregate' && e.kind !== 'function') fail('a window key other than a column or a call', e);
  if (e.distinct) fail('a DISTINCT call as a window key', e);
  return node('x_window_key', xCall(e, 'x_window_key_call'));
}

/** `call OVER ( [PARTITION BY …] [ORDER BY …] [frame] )`. */
function xWindow(e: WindowCall): Derivation {
  const spec: Part[] = [];
  // The parser reads no parenthesis in PARTITION BY or a window's ORDER BY, and a literal
  // there as a column: keys are columns and units (see `xWindowKey`).
  if (e.partitionBy.length > 0)
    spec.push(kw('PARTITION'), kw('BY'), list('x_partition_list', e.partitionBy.map(xWindowKey)));
  if (e.orderBy.length > 0) {
    const items = e.orderBy.map((o) => {
      const parts: Part[] = [xWindowKey(o.expr)];
      if (o.direction) parts.push(kw(o.direction.toUpperCase()));
      if (o.nulls) parts.push(kw('NULLS'), kw(o.nulls.toUpperCase()));
      return node('x_window_order_item', ...parts);
    });
    spec.push(kw('ORDER'), kw('BY'), list('x_window_order_list', items));
  }
  if (e.frame) {
    const bound = (b: FrameBound): Derivation =>
      b.offset
        ? node('x_frame_bound', ph('value', 'number'), kw(b.kind.toUpperCase()))
        : node('x_frame_bound', ...b.kind.toUpperCase().split(' ').map(kw));
    const unit = kw(e.frame.unit.toUpperCase());
    spec.push(
      e.frame.end
        ? node('x_frame', unit, kw('BETWEEN'), bound(e.frame.start), kw('AND'), bound(e.frame.end))
        : node('x_frame', unit, bound(e.frame.start)),
    );
  }
  const over =
    spec.length === 0
      ? node('x_over', kw('OVER'), kw('('), kw(')'))
      : node('x_over', kw('OVER'), kw('('), node('x_window_spec', ...spec), kw(')'));
  return node('x_window', xCall(e.call, 'x_wcall'), over);
}

/** An ORDER BY list of any expressions (inside a call or a window, or a query's own). */
export function xOrderList(items: readonly OrderItem[]): Derivation {
  return list('x_order_list', items.map(xOrderItem));
}

/** One ORDER BY item: `x [ASC|DESC] [NULLS FIRST|LAST]`. */
export function xOrderItem(o: OrderItem): Derivation {
  const parts: Part[] = [xAny(o.expr)];
  if (o.direction) parts.push(kw(o.direction.toUpperCase()));
  if (o.nulls) parts.push(kw('NULLS'), kw(o.nulls.toUpperCase()));
  return node('x_order_item', ...parts);
}

/** Kinds NOT folds into (their negated form); NOT as written never stands over one. */
const FOLDING = new Set<Expr['kind']>(['like', 'in-list', 'in-subquery', 'between', 'exists', 'is-null']);

/**
 * An expression with an operator: a predicate NOT folds into (`x_pred`: LIKE, IN, BETWEEN,
 * EXISTS, IS NULL) or another operator expression (`x_op`: comparison, arithmetic, logic, NOT, …).
 */
function xCompound(e: Expr): Derivation {
  const folded = foldNot(e);
  if (folded) return xCompound(folded);
  return FOLDING.has(e.kind) ? node('x_compound', xPred(e)) : node('x_compound', xOp(e));
}

function xPred(e: Expr): Derivation {
  const not = (negated: boolean): Part[] => (negated ? [kw('NOT')] : []);
  const n = (...parts: Part[]): Derivation => node('x_pred', ...parts);
  switch (e.kind) {
    case 'like':
      return n(xTextOp(e.operand), ...not(e.negated), kw(e.insensitive ? 'ILIKE' : 'LIKE'), xPatternOp(e.pattern));
    case 'in-list':
      return n(xAnyOp(e.operand), ...not(e.negated), kw('IN'), kw('('), xList(e.values), kw(')'));
    case 'in-subquery':
      return n(xAnyOp(e.operand), ...not(e.negated), kw('IN'), ...valueQuery(e.query));
    case 'exists':
      return n(...not(e.negated), kw('EXISTS'), kw('('), deriveQuery(e.query), kw(')'));
    case 'is-null':
      return n(xAnyOp(e.operand), kw('IS'), ...not(e.negated), kw('NULL'));
    case 'between': {
      const tail = (low: Part, high: Part): Part[] => [...not(e.negated), kw('BETWEEN'), low, kw('AND'), high];
      const lit = (x: Expr): 'number' | 'text' | null =>
        x.kind === 'string' ? 'text' : isLiteral(x) ? 'number' : null;
      const [lo, hi] = [lit(e.low), lit(e.high)];
      if (e.operand.kind !== 'column') return n(xNonColOp(e.operand), ...tail(xAnyOp(e.low), xAnyOp(e.high)));
      // A column between two literals of one type takes their type, as the WHERE rules write it.
      if (lo !== null && lo === hi)
        return n(ph('column', lo === 'number' ? 'numeric' : 'text'), ...tail(ph('value', lo), ph('value', lo)));
      // Otherwise the low bound is no literal, or the high bound is no literal of its type.
      if (lo === null) return n(ph('column'), ...tail(xNonLitOp(e.low), xAnyOp(e.high)));
      const high = hi === null ? node(`x_not_${lo}`, xNonLitOp(e.high)) : node(`x_not_${lo}`, ph('value', hi));
      return n(ph('column'), ...tail(ph('value', lo), high));
    }
    default:
      return fail(`predicate ${e.kind}`, e);
  }
}

/**
 * A comparison's operand: arithmetic binds tighter than a comparison, so it stands bare, as
 * the WHERE rules write it; anything else as `general` (an operand class) has it.
 */
function cmpOperand(lhs: string, e: Expr, allow: { column: boolean; literal: boolean }): Derivation {
  if (e.kind === 'arithmetic') return node(lhs, xArith(e));
  // Any other operator expression in parentheses, but never arithmetic (bare above).
  if (COMPOUND_KINDS.has(e.kind)) {
    const inner = FOLDING.has(e.kind) || foldNot(e) ? xPred(foldNot(e) ?? e) : xOp(e, 'x_cmp_op');
    return node(lhs, kw('('), inner, kw(')'));
  }
  if (e.kind === 'column')
    return allow.column ? node(lhs, ph('column')) : fail('a column where the grammar expects a non-column', e);
  if (isLiteral(e))
    return allow.literal
      ? node(lhs, ph('value', e.kind === 'string' ? 'text' : 'number'))
      : fail('a literal where the grammar expects a non-literal', e);
  if (e.kind === 'subquery') return node(lhs, ...valueQuery(e.query));
  return node(lhs, xAtom(e));
}

/** Arithmetic: `+ - * / %` over numeric operands, `||` over text ones. */
function xArith(e: Expr): Derivation {
  if (e.kind !== 'arithmetic') return fail('arithmetic', e);
  if (e.op === '||') return node('x_arith', xTextOp(e.left), kw('||'), xTextOp(e.right));
  return node('x_arith', xNumOp(e.left), node('arith_op', kw(e.op)), xNumOp(e.right));
}

/** `lhs` other than `x_op` names an operator class without arithmetic (see `cmpOperand`). */
function xOp(e: Expr, lhs = 'x_op'): Derivation {
  const node = (_: string, ...parts: Part[]): Derivation => makeNode(lhs, ...parts);
  if (lhs !== 'x_op' && e.kind === 'arithmetic') fail('arithmetic where it stands bare', e);
  switch (e.kind) {
    case 'comparison': {
      const cmp = makeNode('cmp', kw(e.op));
      const { left, right } = e;
      if (left.kind === 'column') {
        if (right.kind === 'number' || (right.kind === 'negate' && right.operand.kind === 'number'))
          return node('x_op', ph('column', 'numeric'), cmp, ph('value', 'number'));
        if (right.kind === 'string') return node('x_op', ph('column', 'text'), cmp, ph('value', 'text'));
        return node('x_op', ph('column'), cmp, cmpOperand('x_cmp_nonlit', right, { column: true, literal: false }));
      }
      return node(
        'x_op',
        cmpOperand('x_cmp_noncol', left, { column: false, literal: true }),
        cmp,
        cmpOperand('x_cmp_any', right, { column: true, literal: true }),
      );
    }
    case 'arithmetic':
      return node('x_op', xArith(e));
    case 'operator':
      return node('x_op', xAnyOp(e.left), kw(e.op), xAnyOp(e.right));
    case 'logical': {
      // AND/OR chains read as WHERE conditions do: an OR-list of AND-lists.
      const inner = whereCondition(e);
      const top = inner.children[0] as Derivation;
      // A logical expression's condition is never a single predicate: keep the list rule.
      const logic =
        inner.rhs.length > 1
          ? derivation('x_logic', inner.rhs, inner.children)
          : derivation('x_logic', top.rhs, top.children);
      return node('x_op', logic);
    }
    case 'not': {
      // What NOT stands over as written: never a form it folds into (see `foldNot`).
      const inner = e.operand;
      if (foldNot(inner)) fail('NOT over a negated predicate', e);
      if (inner.kind === 'column') return node('x_op', kw('NOT'), makeNode('x_not_operand', ph('column')));
      if (isLiteral(inner)) return fail('NOT over a literal', e);
      if (inner.kind === 'subquery')
        return node('x_op', kw('NOT'), makeNode('x_not_operand', ...valueQuery(inner.query)));
      if (!COMPOUND_KINDS.has(inner.kind)) return node('x_op', kw('NOT'), makeNode('x_not_operand', xAtom(inner)));
      return node('x_op', kw('NOT'), makeNode('x_not_operand', kw('('), xOp(inner), kw(')')));
    }
    case 'negate':
      if (e.operand.kind === 'number') return fail('a negative literal as an operator', e);
      if (e.operand.kind === 'column') return node('x_op', kw('-'), ph('column', 'numeric'));
      if (isLiteral(e.operand)) return fail('minus before a literal', e);
      return node('x_op', kw('-'), xOtherOp(e.operand));
    default:
      return fail(`expression ${e.kind} with an operator`, e);
  }
}
