/**
 * From a parsed query to its derivation in equisql's SQL-structure grammar, and so to its
 * skeleton: every table, column, alias and literal replaced by a typed placeholder.
 *
 * The mapping is a function (each query has exactly one derivation), and the grammar is
 * shaped so that printing a derivation's skeleton as SQL and reading it back gives the same
 * derivation: AND/OR chains are flattened into right-recursive lists, parentheses around an
 * OR appear only inside an AND list, arithmetic operands are parenthesized whenever they are
 * themselves arithmetic, and only the last arm of a set operation carries ORDER BY/LIMIT.
 *
 * Types come from context alone, since a skeleton has no schema: a column compared with a
 * number, inside arithmetic, or BETWEEN numbers is `<column:numeric>`; one compared with a
 * string or matched with LIKE is `<column:text>`.
 *
 * @example
 * extractSkeleton(parseSql('SELECT name FROM singer ORDER BY age DESC LIMIT 1')).text;
 * // 'SELECT <column> FROM <table> ORDER BY <column> DESC LIMIT 1'
 */
import type { Expr, FromClause, Join, OrderItem, Query, SelectItem, SelectQuery, TableSource } from '../sql/sql-ast.ts';
import { derivation, skeletonOf, type Derivation, type Skeleton } from './derivation.ts';
import { fail, kw, list, node, ph, type Part } from './derivation-builder.ts';
import { GrammarError } from '../common/errors.ts';
import { COMPOUND_KINDS, xAny, xAtom, xNumOp, xOrderItem } from './expression-rules.ts';
import type { GrammarSymbol } from './pcfg.ts';

/** Condition contexts: WHERE and HAVING draw from separate nonterminals. */
type Context = 'where' | 'having';
const COND_NAMES: Record<Context, { cond: string; conj: string; list: string; conjunct: string; pred: string }> = {
  where: { cond: 'cond', conj: 'conj', list: 'conj_list', conjunct: 'conjunct', pred: 'pred' },
  having: {
    cond: 'having_cond',
    conj: 'having_conj',
    list: 'having_conj_list',
    conjunct: 'having_conjunct',
    pred: 'having_pred',
  },
};

/**
 * Query contexts: a subquery used as a value (scalar, IN) must return one column, so it
 * draws from its own nonterminals with a single select item.
 */
type QueryContext = 'query' | 'subquery';
const QUERY_NAMES: Record<QueryContext, { query: string; stmt: string; simple: string }> = {
  query: { query: 'query', stmt: 'select_stmt', simple: 'simple_select' },
  subquery: { query: 'subquery', stmt: 'sub_select_stmt', simple: 'sub_simple_select' },
};

/** The derivation of a query; throws GrammarError naming the construct the grammar lacks. */
export function deriveQuery(query: Query, qctx: QueryContext = 'query'): Derivation {
  const names = QUERY_NAMES[qctx];
  if (query.kind === 'with') fail('WITH inside a subquery, a derived table or a common table expression');
  if (query.kind === 'select') return node(names.query, selectStmt(query, qctx));
  const arms = [query.head, ...query.tail.map((arm) => arm.query)];
  const ops = query.tail.map((arm) => arm.op);
  // The grammar writes the compound's ORDER BY and LIMIT after the last arm, as SQL does;
  // an arm with its own (parenthesized) has no rule.
  const lastArm = arms[arms.length - 1] as SelectQuery;
  if (lastArm.orderBy.length > 0 || lastArm.limit || lastArm.offset) fail('ORDER BY or LIMIT inside a set operand');
  arms[arms.length - 1] = { ...lastArm, orderBy: query.orderBy, limit: query.limit, offset: query.offset };
  const build = (i: number): Derivation => {
    const arm = arms[i] as SelectQuery;
    if (i === arms.length - 1) return node(names.query, selectStmt(arm, qctx));
    const op = ops[i] as string;
    const opNode = op === 'union all' ? node('set_op', kw('UNION'), kw('ALL')) : node('set_op', kw(op.toUpperCase()));
    return node(names.query, simpleSelect(arm, qctx), opNode, build(i + 1));
  };
  return build(0);
}

/**
 * The derivation of a whole statement: `statement -> query`, or a WITH list before one
 * SELECT. WITH lives here, above `query`, because `query` is also the tail of a set
 * operation (`… EXCEPT query`), where SQL allows no WITH.
 */
export function deriveStatement(query: Query): Derivation {
  if (query.kind !== 'with') return node('statement', deriveQuery(query));
  if (query.body.kind !== 'select') fail('WITH before a set operation');
  const ctes = query.ctes.map((cte) =>
    cte.columns.length === 0
      ? node('cte', ph('alias'), kw('AS'), kw('('), deriveQuery(cte.query), kw(')'))
      : node(
          'cte',
          ph('alias'),
          kw('('),
          list(
            'cte_columns',
            cte.columns.map(() => ph('column')),
          ),
          kw(')'),
          kw('AS'),
          kw('('),
          deriveQuery(cte.query),
          kw(')'),
        ),
  );
  return node('statement', kw('WITH'), list('cte_list', ctes), selectStmt(query.body, 'query'));
}

/** A subquery used as a value: `( SELECT <column> FROM … )`. */
function valueQuery(query: Query): Part[] {
  return [kw('('), deriveQuery(query, 'subquery'), kw(')')];
}

/** The skeleton of a parsed query. */
export function extractSkeleton(query: Query): Skeleton {
  return skeletonOf(deriveStatement(query));
}

function selectCore(select: SelectQuery, qctx: QueryContext): Part[] {
  if (select.offset && !select.limit) fail('OFFSET without LIMIT');
  const parts: Part[] = [kw('SELECT')];
  if (select.distinct) parts.push(kw('DISTINCT'));
  if (qctx === 'subquery') {
    if (select.columns.length !== 1) fail('a subquery used as a value with more than one column');
    const only = (select.columns[0] as SelectItem).expr;
    // The parser refuses `(SELECT * …)` and `(SELECT (SELECT …) …)` as values.
    if (only.kind === 'star' || only.kind === 'subquery')
      fail('SELECT * or a nested subquery as the value of a subquery');
    // A subquery's value cannot start with a parenthesis (the parser refuses it), so the
    // expression rules enter here only through a unit: a call, a CASE, a CAST, …
    parts.push(
      orElse(
        () => (only.kind === 'arithmetic' ? node('sub_item', subArith(only)) : selectItem(only, 'sub_item', false)),
        () => node('sub_item', xAtom(only)),
      ),
    );
  } else if (!select.from) {
    // Without FROM there is nothing for `*` to mean (PostgreSQL: a syntax error), so a
    // FROM-less select list has its own rule, over expressions only.
    if (select.columns.some((c) => c.expr.kind === 'star')) fail('SELECT * without FROM');
    parts.push(
      list(
        'free_select_list',
        select.columns.map((c) => xAny(c.expr)),
      ),
    );
  } else {
    parts.push(
      list(
        'select_list',
        select.columns.map((c) => selectItem(c.expr)),
      ),
    );
  }
  if (select.from) parts.push(fromClause(select.from));
  if (select.where) parts.push(node('where_clause', kw('WHERE'), cond(select.where, 'where')));
  if (select.groupBy.length > 0) {
    parts.push(node('group_clause', kw('GROUP'), kw('BY'), list('group_list', select.groupBy.map(groupItem))));
  }
  if (select.having) parts.push(node('having_clause', kw('HAVING'), cond(select.having, 'having')));
  return parts;
}

function selectStmt(select: SelectQuery, qctx: QueryContext): Derivation {
  const parts = selectCore(select, qctx);
  if (select.orderBy.length > 0)
    parts.push(node('order_clause', kw('ORDER'), kw('BY'), list('order_list', select.orderBy.map(orderItem))));
  if (select.limit) parts.push(limitClause(select.limit, select.offset));
  return node(QUERY_NAMES[qctx].stmt, ...parts);
}

function simpleSelect(select: SelectQuery, qctx: QueryContext): Derivation {
  if (select.orderBy.length > 0 || select.limit || select.offset) fail('ORDER BY or LIMIT inside a set operand');
  return node(QUERY_NAMES[qctx].simple, ...selectCore(select, qctx));
}

/**
 * The clause rule's own form when it has one, else `generic()`, the expression rules'.
 * When both fail, the clause rule's reason is the one reported (it names the construct).
 */
function orElse(specific: () => Derivation, generic: () => Derivation): Derivation {
  try {
    return specific();
  } catch (error) {
    if (!(error instanceof GrammarError)) throw error;
    try {
      return generic();
    } catch (second) {
      if (!(second instanceof GrammarError)) throw second;
      throw error;
    }
  }
}

function selectItem(expr: Expr, lhs = 'select_item', generic = true): Derivation {
  if (generic)
    return orElse(
      () => selectItem(expr, lhs, false),
      () => node(lhs, xAny(expr)),
    );
  switch (expr.kind) {
    case 'star':
      return node(lhs, kw('*'));
    case 'column':
      return node(lhs, ph('column'));
    case 'aggregate':
      return node(lhs, aggCall(expr));
    case 'arithmetic':
      return node(lhs, arith(expr));
    case 'subquery':
      return node(lhs, ...valueQuery(expr.query));
    case 'number':
      return node(lhs, ph('value', 'number'));
    case 'string':
      return node(lhs, ph('value', 'text'));
    default:
      return fail(`select item ${expr.kind}`, expr);
  }
}

function aggCall(expr: Expr): Derivation {
  if (expr.kind !== 'aggregate') return fail('an aggregate', expr);
  if (expr.arg.kind === 'star') {
    if (expr.name !== 'count' || expr.distinct) fail('an aggregate of *', expr);
    return node('agg_call', kw('COUNT'), kw('('), kw('*'), kw(')'));
  }
  if (expr.arg.kind === 'column') {
    return expr.distinct
      ? node('agg_call', ph('agg'), kw('('), kw('DISTINCT'), ph('column'), kw(')'))
      : node('agg_call', ph('agg'), kw('('), ph('column'), kw(')'));
  }
  if (expr.arg.kind === 'arithmetic' && !expr.distinct)
    return node('agg_call', ph('agg'), kw('('), arith(expr.arg), kw(')'));
  return fail('aggregate argument', expr);
}

const ARITH_OPS = new Set(['+', '-', '*', '/']);

function arith(expr: Expr): Derivation {
  if (expr.kind !== 'arithmetic' || !ARITH_OPS.has(expr.op)) return fail('arithmetic', expr);
  return node('arith', term(expr.left), node('arith_op', kw(expr.op)), term(expr.right));
}

/**
 * Arithmetic as the value of a subquery. The parser cannot read a subquery whose select
 * item starts with a parenthesis, so the first operand here is never parenthesized.
 */
function subArith(expr: Expr): Derivation {
  if (expr.kind !== 'arithmetic' || !ARITH_OPS.has(expr.op)) return fail('arithmetic', expr);
  const lead = expr.left;
  const leadNode =
    lead.kind === 'column'
      ? node('lead_term', ph('column', 'numeric'))
      : lead.kind === 'aggregate'
        ? orElse(
            () => node('lead_term', aggCall(lead)),
            () => node('lead_term', xAtom(lead)),
          )
        : lead.kind === 'number'
          ? node('lead_term', ph('value', 'number'))
          : lead.kind !== 'subquery' && !COMPOUND_KINDS.has(lead.kind)
            ? node('lead_term', xAtom(lead))
            : fail('a subquery value starting with a parenthesis', expr);
  return node('sub_arith', leadNode, node('arith_op', kw(expr.op)), term(expr.right));
}

function term(expr: Expr): Derivation {
  return orElse(
    () => clauseTerm(expr),
    () => node('term', xNumOp(expr)),
  );
}

function clauseTerm(expr: Expr): Derivation {
  switch (expr.kind) {
    case 'column':
      return node('term', ph('column', 'numeric'));
    case 'aggregate':
      return node('term', aggCall(expr));
    case 'number':
      return node('term', ph('value', 'number'));
    case 'arithmetic':
      return node('term', kw('('), arith(expr), kw(')'));
    case 'subquery':
      return node('term', ...valueQuery(expr.query));
    default:
      return fail('arithmetic operand', expr);
  }
}

function fromClause(from: FromClause): Derivation {
  const first = source(from.first);
  if (from.joins.length === 0) return node('from_clause', kw('FROM'), first);
  // The parser reads `JOIN t ON a = b, u` as a condition list, so comma joins are kept
  // apart from JOINs: a FROM clause has one kind or the other.
  const commas = from.joins.filter((j) => j.kind === 'comma').length;
  if (commas === from.joins.length) {
    return node(
      'from_clause',
      kw('FROM'),
      first,
      list(
        'comma_list',
        from.joins.map((j) => node('comma_item', kw(','), source(j.source))),
        null,
      ),
    );
  }
  if (commas > 0) fail('a FROM clause mixing commas and JOINs');
  return node('from_clause', kw('FROM'), first, list('join_list', from.joins.map(join), null));
}

function join(j: Join): Derivation {
  const src = source(j.source);
  const on = j.on ? [kw('ON'), onCond(j.on)] : [];
  switch (j.kind) {
    case 'comma':
      return fail('a comma join among JOINs');
    case 'inner':
      // SQLite reads `JOIN t` without ON as a cross join; PostgreSQL requires ON, so the
      // grammar spells it CROSS JOIN.
      return j.on ? node('join', kw('JOIN'), src, ...on) : node('join', kw('CROSS'), kw('JOIN'), src);
    case 'left':
    case 'right':
    case 'full':
      if (!j.on) fail(`${j.kind.toUpperCase()} JOIN without ON`);
      return node('join', kw(j.kind.toUpperCase()), kw('JOIN'), src, ...on);
    case 'cross':
      if (j.on) fail('CROSS JOIN with ON');
      return node('join', kw('CROSS'), kw('JOIN'), src);
  }
}

function source(src: TableSource): Derivation {
  switch (src.kind) {
    case 'table':
      return node('source', ph('table'));
    case 'derived':
      return node('source', kw('('), deriveQuery(src.query), kw(')'), ph('alias'));
    case 'table-function':
      return fail(`a table function (${src.call.name})`);
  }
}

function flatten(expr: Expr, op: 'and' | 'or'): Expr[] {
  return expr.kind === 'logical' && expr.op === op ? [...flatten(expr.left, op), ...flatten(expr.right, op)] : [expr];
}

function onCond(expr: Expr): Derivation {
  return orElse(
    () => onEqualities(expr),
    () => node('on_cond', whereCondition(expr)),
  );
}

function onEqualities(expr: Expr): Derivation {
  const equalities = flatten(expr, 'and').map((e) => {
    if (e.kind !== 'comparison' || e.op !== '=' || e.left.kind !== 'column' || e.right.kind !== 'column') {
      return fail('a join condition other than column equalities', expr);
    }
    return node('on_eq', ph('column'), kw('='), ph('column'));
  });
  return list('on_cond', equalities, 'AND');
}

function cond(expr: Expr, ctx: Context): Derivation {
  const names = COND_NAMES[ctx];
  const disjuncts = flatten(expr, 'or');
  const build = (i: number): Derivation => {
    const head = conj(disjuncts[i] as Expr, ctx);
    return i === disjuncts.length - 1 ? node(names.cond, head) : node(names.cond, head, kw('OR'), build(i + 1));
  };
  return build(0);
}

function conj(expr: Expr, ctx: Context): Derivation {
  const names = COND_NAMES[ctx];
  const conjuncts = flatten(expr, 'and');
  if (conjuncts.length === 1) return node(names.conj, pred(conjuncts[0] as Expr, ctx));
  const items = conjuncts.map((c) => conjunct(c, ctx));
  const [first, ...rest] = items;
  return node(names.conj, first as Derivation, kw('AND'), list(names.list, rest, 'AND'));
}

function conjunct(expr: Expr, ctx: Context): Derivation {
  const names = COND_NAMES[ctx];
  if (expr.kind === 'logical' && expr.op === 'or') {
    const [first, ...rest] = flatten(expr, 'or');
    return node(names.conjunct, kw('('), conj(first as Expr, ctx), kw('OR'), cond(orChain(rest), ctx), kw(')'));
  }
  return node(names.conjunct, pred(expr, ctx));
}

function orChain(items: readonly Expr[]): Expr {
  return items
    .slice(1)
    .reduce<Expr>((acc, e) => ({ kind: 'logical', op: 'or', left: acc, right: e }), items[0] as Expr);
}

/** The derivation of a WHERE condition (the expression rules use it for CASE WHEN, FILTER, AND/OR). */
export function whereCondition(expr: Expr): Derivation {
  return cond(expr, 'where');
}

function pred(expr: Expr, ctx: Context): Derivation {
  return orElse(
    () => clausePred(expr, ctx),
    () => node(COND_NAMES[ctx].pred, xAny(expr)),
  );
}

function clausePred(expr: Expr, ctx: Context): Derivation {
  const p = (...parts: Part[]): Derivation => node(COND_NAMES[ctx].pred, ...parts);
  const not = (negated: boolean): Part[] => (negated ? [kw('NOT')] : []);
  switch (expr.kind) {
    case 'comparison': {
      const cmp = node('cmp', kw(expr.op));
      const { left, right } = expr;
      if (left.kind === 'column') {
        if (right.kind === 'number') return p(ph('column', 'numeric'), cmp, ph('value', 'number'));
        if (right.kind === 'string') return p(ph('column', 'text'), cmp, ph('value', 'text'));
        return p(ph('column'), cmp, rhsOperand(right));
      }
      return p(lhsOperand(left), cmp, operand(right));
    }
    case 'in-subquery':
      if (expr.operand.kind !== 'column') return fail('IN with a non-column operand', expr);
      return p(ph('column'), ...not(expr.negated), kw('IN'), ...valueQuery(expr.query));
    case 'in-list':
      if (expr.operand.kind !== 'column') return fail('IN with a non-column operand', expr);
      return p(
        ph('column'),
        ...not(expr.negated),
        kw('IN'),
        kw('('),
        list('value_list', expr.values.map(listValue)),
        kw(')'),
      );
    case 'exists':
      return p(...not(expr.negated), kw('EXISTS'), kw('('), deriveQuery(expr.query), kw(')'));
    case 'like':
      if (expr.operand.kind !== 'column' || expr.pattern.kind !== 'string')
        return fail('LIKE other than column LIKE string', expr);
      if (expr.insensitive) return fail('ILIKE', expr);
      return p(ph('column', 'text'), ...not(expr.negated), kw('LIKE'), ph('value', 'pattern'));
    case 'between': {
      const type =
        expr.low.kind === 'number' && expr.high.kind === 'number'
          ? 'number'
          : expr.low.kind === 'string' && expr.high.kind === 'string'
            ? 'text'
            : null;
      if (type === null) return fail('BETWEEN with mixed or non-literal bounds', expr);
      const bounds = [...not(expr.negated), kw('BETWEEN'), ph('value', type), kw('AND'), ph('value', type)];
      if (expr.operand.kind === 'aggregate' && type === 'number') return p(aggCall(expr.operand), ...bounds);
      if (expr.operand.kind !== 'column') return fail('BETWEEN with a non-column operand', expr);
      return p(ph('column', type === 'number' ? 'numeric' : 'text'), ...bounds);
    }
    case 'is-null':
      if (expr.operand.kind !== 'column') return fail('IS NULL with a non-column operand', expr);
      return p(ph('column'), kw('IS'), ...not(expr.negated), kw('NULL'));
    case 'not': {
      // `NOT x LIKE y` and `x NOT LIKE y` are one construct; the grammar knows the second form.
      const inner = expr.operand;
      if (
        inner.kind === 'like' ||
        inner.kind === 'in-list' ||
        inner.kind === 'in-subquery' ||
        inner.kind === 'between' ||
        inner.kind === 'exists' ||
        inner.kind === 'is-null'
      ) {
        return pred({ ...inner, negated: !inner.negated }, ctx);
      }
      return fail('NOT over this condition', expr);
    }
    default:
      return fail(`condition ${expr.kind}`, expr);
  }
}

function listValue(expr: Expr): Derivation {
  if (expr.kind === 'number') return node('value', ph('value', 'number'));
  if (expr.kind === 'string') return node('value', ph('value', 'text'));
  return fail('IN list item', expr);
}

/** The right side of `<column> cmp …` when it is not a literal. */
function rhsOperand(expr: Expr): Derivation {
  switch (expr.kind) {
    case 'column':
      return node('rhs', ph('column'));
    case 'aggregate':
      return node('rhs', aggCall(expr));
    case 'arithmetic':
      return node('rhs', arith(expr));
    case 'subquery':
      return node('rhs', ...valueQuery(expr.query));
    default:
      return fail('comparison operand', expr);
  }
}

/** The left side of a comparison that does not start with a column. */
function lhsOperand(expr: Expr): Derivation {
  switch (expr.kind) {
    case 'aggregate':
      return node('lhs', aggCall(expr));
    case 'arithmetic':
      return node('lhs', arith(expr));
    case 'number':
      return node('lhs', ph('value', 'number'));
    case 'string':
      return node('lhs', ph('value', 'text'));
    case 'subquery':
      return node('lhs', ...valueQuery(expr.query));
    default:
      return fail('comparison operand', expr);
  }
}

function operand(expr: Expr): Derivation {
  if (expr.kind === 'column') return node('operand', ph('column'));
  const inner = lhsOperand(expr);
  return derivation('operand', inner.rhs, inner.children);
}

function groupItem(expr: Expr): Part {
  return expr.kind === 'column' ? ph('column') : xAny(expr);
}

function orderItem(item: OrderItem): Derivation {
  if (item.nulls !== null) return node('order_item', xOrderItem(item));
  return orElse(
    () => clauseOrderItem(item),
    () => node('order_item', xOrderItem(item)),
  );
}

function clauseOrderItem(item: OrderItem): Derivation {
  const key = sortKey(item.expr);
  if (item.direction === null) return node('order_item', key);
  return node('order_item', key, kw(item.direction.toUpperCase()));
}

function sortKey(expr: Expr): Derivation {
  switch (expr.kind) {
    case 'column':
      return node('sort_key', ph('column'));
    case 'aggregate':
      return node('sort_key', aggCall(expr));
    case 'arithmetic':
      return node('sort_key', arith(expr));
    default:
      return fail('ORDER BY item', expr);
  }
}

function limitClause(expr: Expr, offset: Expr | null = null): Derivation {
  if (expr.kind !== 'number') return fail('non-numeric LIMIT', expr);
  if (offset && offset.kind !== 'number') return fail('non-numeric OFFSET', offset);
  const tail = offset ? [kw('OFFSET'), ph('value', 'number')] : [];
  return expr.text === '1'
    ? node('limit_clause', kw('LIMIT'), kw('1'), ...tail)
    : node('limit_clause', kw('LIMIT'), ph('value', 'number'), ...tail);
}
