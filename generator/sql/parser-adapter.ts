/**
 * The one module that imports node-sql-parser. It parses with an explicit dialect (and, on
 * request, falls back across dialects), converts the parser's loose objects into our typed
 * AST (`sql-ast.ts`), and turns every failure into a `SqlParseError` with line and column.
 *
 * It also refuses what the parser silently misreads: node-sql-parser takes
 * `FROM a CROSS JOIN b` and `FROM a NATURAL JOIN b` as a table aliased `CROSS`/`NATURAL`
 * joined with no condition, which would turn a cross or natural join into something else
 * without a word.
 */
import nodeSqlParser from 'node-sql-parser';
import { isStackOverflow, SqlParseError } from '../common/errors.ts';
import { restoreMasked, scanSql, type ScannedSql } from './sql-scanner.ts';
import { compatibleText } from './parser-compat.ts';
import type {
  Aggregate,
  AggregateName,
  ArithmeticOperator,
  CommonTableExpression,
  CompoundQuery,
  ComparisonOperator,
  Dialect,
  Expr,
  FromClause,
  Join,
  JoinKind,
  OrderItem,
  Query,
  SelectItem,
  SelectQuery,
  SetOperator,
  TableSource,
  WindowCall,
  WindowFrame,
  FrameBound,
  FunctionCall,
  Filtered,
  ClockValue,
} from './sql-ast.ts';

export type { Dialect } from './sql-ast.ts';

export interface ParseOptions {
  /** The dialect tried first (default `postgresql`, the dialect equisql compiles to). */
  readonly dialect?: Dialect;
  /** Try the other dialects when the first one fails (default false). */
  readonly fallback?: boolean;
}

/** A parsed query together with the dialect that accepted it. */
export interface ParsedQuery {
  readonly query: Query;
  readonly dialect: Dialect;
}

/**
 * The order dialects are tried in after the requested one. SQLite's grammar in
 * node-sql-parser cannot read INTERSECT or EXCEPT, and MySQL's reads almost everything it
 * misses, so SQLite and MySQL try each other before PostgreSQL. Whichever grammar accepts
 * the query, string and identifier quoting follow the requested dialect (see `Converter`).
 */
const FALLBACK_ORDER: Record<Dialect, readonly Dialect[]> = {
  sqlite: ['sqlite', 'mysql', 'postgresql'],
  mysql: ['mysql', 'sqlite', 'postgresql'],
  postgresql: ['postgresql', 'sqlite', 'mysql'],
};
const PARSER_DATABASE: Record<Dialect, string> = { postgresql: 'postgresql', sqlite: 'sqlite', mysql: 'mysql' };

/** Words that can never be a table alias; seeing one as an alias means a misread join. */
const KEYWORD_ALIASES = new Set([
  'CROSS',
  'NATURAL',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'OUTER',
  'ON',
  'USING',
  'WHERE',
  'LATERAL',
]);

let parserInstance: InstanceType<typeof nodeSqlParser.Parser> | undefined;
function parser(): InstanceType<typeof nodeSqlParser.Parser> {
  parserInstance ??= new nodeSqlParser.Parser();
  return parserInstance;
}

/**
 * Parses one SQL query into equisql's typed AST.
 *
 * @example
 * parseSql('SELECT name FROM singer WHERE age > 30', { dialect: 'sqlite' });
 * // { kind: 'select', columns: [{ expr: { kind: 'column', table: null, name: 'name' }, … }], … }
 * parseSql('SELECT a FROM t CROSS JOIN u'); // throws SqlParseError (line 1, column 17)
 */
export function parseSql(text: string, options: ParseOptions = {}): Query {
  return parseSqlWithDialect(text, options).query;
}

/** Like `parseSql`, and also says which dialect accepted the query. */
export function parseSqlWithDialect(text: string, options: ParseOptions = {}): ParsedQuery {
  const first = options.dialect ?? 'postgresql';
  const order = options.fallback ? FALLBACK_ORDER[first] : [first];
  const body = text.replace(/[\s;]+$/u, '');
  if (body.trim() === '') throw new SqlParseError('empty query', { line: 1, column: 1 });
  // Size limits and quoting follow the dialect the text is written in, whichever grammar reads it.
  const scanned = scanSql(body, first);
  let firstError: SqlParseError | undefined;
  let firstRefusal: SqlParseError | undefined;
  for (const dialect of order) {
    try {
      return { query: parseIn(body, scanned, dialect, first), dialect };
    } catch (error) {
      // Anything else is a bug in the conversion, not a query problem: let it surface.
      if (!(error instanceof SqlParseError)) throw error;
      firstError ??= error;
      // A grammar that read the query and a construct we refuse says more than a syntax error.
      if (refusals.has(error)) firstRefusal ??= error;
    }
  }
  throw firstRefusal ?? firstError ?? new SqlParseError('no dialect to parse with');
}

/** Parses with `dialect`'s grammar, reading quotes as `source` (the dialect the text is in) does. */
function parseIn(body: string, scanned: ScannedSql, dialect: Dialect, source: Dialect): Query {
  let raw: unknown;
  try {
    raw = parser().astify(compatibleText(scanned.text), {
      database: PARSER_DATABASE[dialect],
      parseOptions: { includeLocations: true },
    });
  } catch (error) {
    throw fromParserError(error, dialect);
  }
  if (Array.isArray(raw)) {
    if (raw.length !== 1) throw new SqlParseError(`${dialect}: expected one statement, found ${raw.length}`);
    raw = raw[0];
  }
  try {
    return new Converter(body, dialect, source).query(restoreMasked(raw, scanned.masked));
  } catch (error) {
    if (isStackOverflow(error))
      throw new SqlParseError(
        `${dialect}: query nested too deeply to read (a chain of operators or subqueries)`,
        undefined,
        { cause: error },
      );
    throw error;
  }
}

function fromParserError(error: unknown, dialect: Dialect): SqlParseError {
  // The scanner bounds nesting and size; should the parser still run out of stack, that is
  // this query's problem, not the process's.
  if (isStackOverflow(error))
    return new SqlParseError(
      `${dialect}: query nested too deeply to read (a chain of operators or subqueries)`,
      undefined,
      { cause: error },
    );
  const location = (error as { location?: { start?: { line?: number; column?: number } } }).location?.start;
  const found = /but (.*) found/u.exec(error instanceof Error ? error.message : '')?.[1];
  if (!location) {
    // Errors the parser raises after reading (`invalid column clause with select statement`).
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? '').trim() : String(error);
    return new SqlParseError(`${dialect}: ${message || 'syntax error'}`, undefined, { cause: error });
  }
  const what = found ? `unexpected ${found}` : 'syntax error';
  return new SqlParseError(
    `${dialect}: ${what} at line ${location.line}, column ${location.column}`,
    { line: location.line, column: location.column },
    {
      cause: error,
    },
  );
}

type Raw = Record<string, unknown>;

/** Errors a grammar raised after reading the query: a construct we refuse, not a syntax error. */
const refusals = new WeakSet<SqlParseError>();
function refusal(message: string, position?: { line: number; column: number }): SqlParseError {
  const error = new SqlParseError(message, position);
  refusals.add(error);
  return error;
}

/**
 * Keys the parser sets that name a construct, so a refusal can say what it refused and
 * where the keyword is. Any other unread key is refused under its own name.
 */
const CONSTRUCTS: Record<string, { readonly name: string; readonly keyword: RegExp }> = {
  escape: { name: 'LIKE … ESCAPE', keyword: /\bESCAPE\b/iu },
  collate: { name: 'COLLATE', keyword: /\bCOLLATE\b/iu },
  suffix: { name: 'COLLATE', keyword: /\bCOLLATE\b/iu },
  filter: { name: 'FILTER (WHERE …)', keyword: /\bFILTER\b/iu },
  tablesample: { name: 'TABLESAMPLE', keyword: /\bTABLESAMPLE\b/iu },
  over: { name: 'window function (OVER)', keyword: /\bOVER\b/iu },
  window: { name: 'WINDOW clause', keyword: /\bWINDOW\b/iu },
  into: { name: 'SELECT … INTO', keyword: /\bINTO\b/iu },
  options: { name: 'SELECT option', keyword: /\bSELECT\b/iu },
  with: { name: 'WITH clause', keyword: /\bWITH\b/iu },
  using: { name: 'JOIN … USING', keyword: /\bUSING\b/iu },
  locking_read: { name: 'FOR UPDATE / FOR SHARE', keyword: /\bFOR\b/iu },
  for_update: { name: 'FOR UPDATE / FOR SHARE', keyword: /\bFOR\b/iu },
};

/** The keys each expression node type's conversion reads. */
const EXPRESSION_KEYS: Record<string, readonly string[]> = {
  column_ref: ['table', 'column'],
  star: ['value'],
  number: ['value'],
  single_quote_string: ['value'],
  string: ['value'],
  double_quote_string: ['value'],
  null: ['value'],
  bool: ['value'],
  boolean: ['value'],
  binary_expr: ['operator', 'left', 'right'],
  unary_expr: ['operator', 'expr'],
  aggr_func: ['name', 'args', 'over', 'filter'],
  extract: ['args'],
  interval: ['expr', 'unit'],
  function: ['name', 'args', 'args_parentheses', 'over'],
  window_func: ['name', 'args', 'over'],
  case: ['expr', 'args'],
  array: ['expr_list', 'brackets', 'keyword'],
  cast: ['expr', 'target', 'keyword', 'symbol'],
};

/** Keys that never change what a node means. */
const INERT_KEYS = new Set(['loc', 'parentheses', 'type']);

/** True for null, empty strings, arrays and objects, and objects holding only such values. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isRaw(value)) return Object.values(value).every(isEmpty);
  return false;
}

function isRaw(value: unknown): value is Raw {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Identifier text from any of the shapes the parser uses (string, {value}, {expr:{value}}). */
function ident(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (isRaw(value)) {
    if ('expr' in value && isRaw(value['expr'])) return ident(value['expr']);
    if ('value' in value && (typeof value['value'] === 'string' || typeof value['value'] === 'number'))
      return String(value['value']);
  }
  return null;
}

const COMPARISONS: Record<string, ComparisonOperator> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
};
const ARITHMETIC: Record<string, ArithmeticOperator> = { '+': '+', '-': '-', '*': '*', '/': '/', '%': '%', '||': '||' };
const AGGREGATES = new Set<AggregateName>(['count', 'sum', 'avg', 'min', 'max']);
const CLOCK_VALUES: ReadonlySet<string> = new Set([
  'CURRENT_DATE',
  'CURRENT_TIMESTAMP',
  'CURRENT_TIME',
  'LOCALTIMESTAMP',
  'LOCALTIME',
]);
const OTHER_OPERATOR = /^[-+*/<>=~!@#%^&|`?]+$/u;
const JOINS: Record<string, JoinKind> = {
  JOIN: 'inner',
  'INNER JOIN': 'inner',
  'LEFT JOIN': 'left',
  'LEFT OUTER JOIN': 'left',
  'RIGHT JOIN': 'right',
  'RIGHT OUTER JOIN': 'right',
  'FULL JOIN': 'full',
  'FULL OUTER JOIN': 'full',
  'CROSS JOIN': 'cross',
};
const SET_OPERATORS: Record<string, SetOperator> = {
  union: 'union',
  'union all': 'union all',
  'union distinct': 'union',
  intersect: 'intersect',
  except: 'except',
  minus: 'except',
};

/** `NOT (x)` as the parser returns it: a call of a function named NOT. */
function notCallOperand(raw: unknown): unknown {
  if (!isRaw(raw) || raw['type'] !== 'function' || raw['parentheses']) return undefined;
  const name = raw['name'];
  const parts = isRaw(name) && Array.isArray(name['name']) ? (name['name'] as unknown[]) : [name];
  if (parts.length !== 1 || ident(parts[0])?.toUpperCase() !== 'NOT') return undefined;
  const args = raw['args'];
  return isRaw(args) && Array.isArray(args['value']) && args['value'].length === 1 ? args['value'][0] : undefined;
}

/**
 * NOT binds looser than every comparison and arithmetic operator, so `NOT (b) IN (1, 2)`
 * is `NOT (b IN (1, 2))`; node-sql-parser reads a call `NOT(b)` as the left operand. When
 * the leftmost operand of a chain of such operators is that call, returns the chain with
 * the call's operand in its place (the caller negates the whole); otherwise undefined.
 */
function withoutLeadingNot(raw: Raw): Raw | undefined {
  const left = raw['left'];
  const operand = notCallOperand(left);
  if (operand !== undefined) return { ...raw, left: operand };
  if (!isRaw(left) || left['type'] !== 'binary_expr' || left['parentheses']) return undefined;
  const op = String(left['operator']).toUpperCase();
  if (op === 'AND' || op === 'OR') return undefined;
  const inner = withoutLeadingNot(left);
  return inner ? { ...raw, left: inner } : undefined;
}

/** `word` as a whole word, case-insensitive; underscores in parser names may be spaces in SQL. */
function wordPattern(word: string): RegExp {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&').replaceAll('_', '[_\\s]+');
  return new RegExp(`\\b${escaped}\\b`, 'iu');
}

/** Walks one parser AST; throws SqlParseError on anything outside our AST. */
class Converter {
  constructor(
    private readonly text: string,
    private readonly dialect: Dialect,
    /** The dialect the text is written in; it decides what a double-quoted word is. */
    private readonly sourceDialect: Dialect = dialect,
  ) {}

  /** The expression being converted, for positions in errors (the parser marks some nodes). */
  private current: Raw | undefined;

  /** True when the node being converted carries a position. */
  private located(): boolean {
    const loc = this.current?.['loc'];
    return isRaw(loc) && isRaw(loc['start']);
  }

  private unsupported(what: string): SqlParseError {
    const loc = this.current?.['loc'];
    const start = isRaw(loc) && isRaw(loc['start']) ? loc['start'] : undefined;
    if (start && typeof start['line'] === 'number' && typeof start['column'] === 'number') {
      return refusal(`${this.dialect}: unsupported ${what} at line ${start['line']}, column ${start['column']}`, {
        line: start['line'],
        column: start['column'],
      });
    }
    return refusal(`${this.dialect}: unsupported ${what}`);
  }

  /**
   * A refusal naming `construct`, placed at `keyword` in the text when it occurs there;
   * with `nearestFirst`, a position the parser marked on the node wins over the keyword.
   */
  private refuse(construct: string, keyword?: RegExp, nearestFirst = false): SqlParseError {
    const match = keyword?.exec(this.text);
    if (!match || (nearestFirst && this.located())) return this.unsupported(construct);
    const before = this.text.slice(0, match.index).split('\n');
    const line = before.length;
    const column = (before[before.length - 1]?.length ?? 0) + 1;
    return refusal(`${this.dialect}: unsupported ${construct} at line ${line}, column ${column}`, { line, column });
  }

  /**
   * Refuses any key of a parser node that the conversion does not read, unless it is empty:
   * the parser records constructs we do not model (COLLATE, ESCAPE, FILTER, …) as extra keys,
   * and ignoring them would silently read another query.
   */
  private only(raw: Raw, node: string, read: readonly string[]): void {
    for (const [key, value] of Object.entries(raw)) {
      if (INERT_KEYS.has(key) || read.includes(key) || isEmpty(value)) continue;
      const known = CONSTRUCTS[key];
      throw known
        ? this.refuse(known.name, known.keyword)
        : this.refuse(`${node} with "${key}"`, wordPattern(key), true);
    }
  }

  query(raw: unknown): Query {
    if (!isRaw(raw) || raw['type'] !== 'select') {
      throw this.unsupported(`statement ${isRaw(raw) ? String(raw['type']) : typeof raw} (only SELECT is read)`);
    }
    if (Array.isArray(raw['with']) && raw['with'].length > 0) {
      const ctes = (raw['with'] as unknown[]).map((cte) => this.commonTableExpression(cte));
      const body = this.query({ ...raw, with: null });
      if (body.kind === 'with') throw this.unsupported('WITH given twice');
      return { kind: 'with', ctes, body };
    }
    return this.setQuery(raw);
  }

  /**
   * One `name[(columns)] AS (query)` of a WITH list. RECURSIVE is refused: nothing in the
   * text bounds how many rows a recursive CTE makes, and text-to-SQL data has no use for it.
   */
  private commonTableExpression(raw: unknown): CommonTableExpression {
    if (!isRaw(raw)) throw this.unsupported('WITH item');
    if (raw['recursive']) throw this.refuse('WITH RECURSIVE', /\bRECURSIVE\b/iu);
    this.only(raw, 'WITH item', ['name', 'stmt', 'columns']);
    const name = ident(raw['name']);
    if (name === null) throw this.unsupported('WITH item name');
    const columns = Array.isArray(raw['columns'])
      ? (raw['columns'] as unknown[]).map((c) => {
          const column = isRaw(c) ? ident(c['column']) : ident(c);
          if (column === null) throw this.unsupported(`column list of WITH item "${name}"`);
          return column;
        })
      : [];
    const stmt = raw['stmt'];
    // Some grammars wrap the CTE's statement as `{ ast }`.
    const body = isRaw(stmt) && isRaw(stmt['ast']) ? stmt['ast'] : stmt;
    return { name, columns, query: this.query(body) };
  }

  /** A SELECT or a chain of SELECTs joined by set operators. */
  private setQuery(raw: Raw): SelectQuery | CompoundQuery {
    if (!isRaw(raw['_next'])) return this.select(raw, false);
    const rawArms: Raw[] = [raw];
    const ops: SetOperator[] = [];
    for (let current: Raw = raw; isRaw(current['_next']); current = current['_next'] as Raw) {
      const opText = String(current['set_op'] ?? '').toLowerCase();
      const op = SET_OPERATORS[opText];
      if (!op) throw this.unsupported(`set operator "${opText}"`);
      const next = current['_next'] as Raw;
      if (next['type'] !== 'select') throw this.unsupported(`set operand ${String(next['type'])}`);
      ops.push(op);
      rawArms.push(next);
    }
    const arms = rawArms.map((arm) => this.select(arm, true));
    arms.forEach((arm, i) => {
      // `SELECT … LIMIT 3 INTERSECT SELECT …`: SQLite and PostgreSQL refuse it, the parser
      // reads it; only a parenthesized arm may order or cut itself.
      const own = arm.orderBy.length > 0 || arm.limit !== null || arm.offset !== null;
      if (own && i < arms.length - 1 && !rawArms[i]?.['parentheses_symbol']) {
        throw this.refuse('ORDER BY or LIMIT before a set operator', /\b(UNION|INTERSECT|EXCEPT|MINUS)\b/iu);
      }
    });
    // Without parentheses the last arm's ORDER BY and LIMIT are the whole compound's; after
    // a parenthesized last arm the parser keeps the compound's in `_orderby` / `_limit`.
    const last = arms[arms.length - 1] as SelectQuery;
    const lastRaw = rawArms[rawArms.length - 1] as Raw;
    let orderBy: OrderItem[] = this.orderItems(Array.isArray(raw['_orderby']) ? (raw['_orderby'] as unknown[]) : []);
    let { limit, offset } = this.limit(raw['_limit'], undefined);
    if (!lastRaw['parentheses_symbol']) {
      if (orderBy.length > 0 || limit !== null || offset !== null)
        throw this.unsupported('ORDER BY or LIMIT given twice after a set operator');
      ({ orderBy, limit, offset } = { orderBy: [...last.orderBy], limit: last.limit, offset: last.offset });
      arms[arms.length - 1] = { ...last, orderBy: [], limit: null, offset: null };
    }
    const [head, ...rest] = arms as [SelectQuery, ...SelectQuery[]];
    return {
      kind: 'compound',
      head,
      tail: rest.map((query, i) => ({ op: ops[i] as SetOperator, query })),
      orderBy,
      limit,
      offset,
    };
  }

  /** One SELECT; an `arm` of a compound leaves `_orderby` / `_limit` to the compound. */
  private select(raw: Raw, arm: boolean): SelectQuery {
    const compoundKeys = arm ? ['_next', 'set_op', 'parentheses_symbol', '_orderby', '_limit'] : ['_limit'];
    // `query` takes a leading WITH off; one still here sits on a parenthesized arm of a compound.
    if (Array.isArray(raw['with']) && raw['with'].length > 0)
      throw this.refuse('WITH inside a set operation arm', /\bWITH\b/iu);
    this.only(raw, 'SELECT', [
      'distinct',
      'columns',
      'from',
      'where',
      'groupby',
      'having',
      'orderby',
      'limit',
      ...compoundKeys,
    ]);
    const distinctRaw = raw['distinct'];
    const distinctText = isRaw(distinctRaw) ? distinctRaw['type'] : distinctRaw;
    if (typeof distinctText === 'string' && distinctText.toUpperCase() !== 'DISTINCT')
      throw this.refuse(distinctText.toUpperCase(), /\bDISTINCT\b/iu);
    if (isRaw(distinctRaw)) this.only(distinctRaw, 'DISTINCT', []);
    const distinct = typeof distinctText === 'string';
    const columnsRaw = raw['columns'];
    const columns: SelectItem[] =
      columnsRaw === '*'
        ? [{ expr: { kind: 'star', table: null }, alias: null }]
        : (columnsRaw as Raw[]).map((item) => {
            this.only(item, 'select item', ['expr', 'as']);
            return { expr: this.expr(item['expr']), alias: ident(item['as']) };
          });
    const from = Array.isArray(raw['from']) && raw['from'].length > 0 ? this.from(raw['from'] as Raw[]) : null;
    const groupRaw = raw['groupby'];
    const groupList = Array.isArray(groupRaw)
      ? groupRaw
      : isRaw(groupRaw) && Array.isArray(groupRaw['columns'])
        ? groupRaw['columns']
        : [];
    const orderBy = this.orderItems(Array.isArray(raw['orderby']) ? (raw['orderby'] as unknown[]) : []);
    const { limit, offset } = this.limit(raw['limit'], arm ? undefined : raw['_limit']);
    return {
      kind: 'select',
      distinct,
      columns,
      from,
      where: raw['where'] ? this.expr(raw['where']) : null,
      groupBy: (groupList as unknown[]).map((g) => this.expr(g)),
      having: raw['having'] ? this.expr(raw['having']) : null,
      orderBy,
      limit,
      offset,
    };
  }

  private orderItems(items: readonly unknown[]): OrderItem[] {
    return items.map((item) => {
      if (!isRaw(item)) throw this.unsupported('ORDER BY item');
      const type = typeof item['type'] === 'string' ? item['type'].toLowerCase() : null;
      this.only(item, 'ORDER BY item', ['expr', 'nulls']);
      const nulls = typeof item['nulls'] === 'string' ? item['nulls'].toUpperCase() : null;
      return {
        expr: this.expr(item['expr']),
        direction: type === 'asc' || type === 'desc' ? type : null,
        nulls: nulls === 'NULLS FIRST' ? 'first' : nulls === 'NULLS LAST' ? 'last' : null,
      };
    });
  }

  /**
   * The parser writes `LIMIT n OFFSET m` as [n, m] with separator "offset", MySQL's
   * `LIMIT m, n` as [m, n] with ",", and PostgreSQL's `OFFSET m` as [m] with "offset" (its
   * `OFFSET m LIMIT n` puts the LIMIT in `second`).
   */
  private limit(raw: unknown, second: unknown): { limit: Expr | null; offset: Expr | null } {
    if (isRaw(raw)) this.only(raw, 'LIMIT', ['value', 'seperator']);
    if (!isRaw(raw) || !Array.isArray(raw['value']) || raw['value'].length === 0) {
      if (!isEmpty(second)) throw this.refuse('LIMIT form', /\bLIMIT\b/iu);
      return { limit: null, offset: null };
    }
    const values = (raw['value'] as unknown[]).map((v) => this.expr(v));
    const separator = String(raw['seperator'] ?? '').toLowerCase();
    if (separator === 'offset' && values.length === 1) {
      const after = isRaw(second) ? this.limit(second, undefined) : { limit: null, offset: null };
      if (after.offset !== null) throw this.refuse('OFFSET form', /\bOFFSET\b/iu);
      return { limit: after.limit, offset: values[0] as Expr };
    }
    if (!isEmpty(second)) throw this.refuse('LIMIT form', /\bLIMIT\b/iu);
    if (values.length === 1 && separator === '') return { limit: values[0] as Expr, offset: null };
    if (values.length === 2 && separator === ',') return { limit: values[1] as Expr, offset: values[0] as Expr };
    if (values.length === 2 && separator === 'offset') return { limit: values[0] as Expr, offset: values[1] as Expr };
    throw this.refuse('LIMIT form', /\bLIMIT\b/iu);
  }

  private from(rawItems: readonly Raw[]): FromClause {
    // PostgreSQL's grammar reads `FROM a CROSS JOIN b` (a without alias) as `a` aliased
    // CROSS, inner-joined to b with no condition. Undo exactly that shape; any other
    // keyword alias is refused in `source`.
    const items = rawItems.map((item) => ({ ...item }));
    items.forEach((item, i) => {
      const next = items[i + 1];
      const nextJoin = typeof next?.['join'] === 'string' ? next['join'].toUpperCase() : '';
      const crossAlias = item['as'] === 'CROSS' || item['as'] === 'cross' || item['as'] === 'Cross';
      if (
        crossAlias &&
        next &&
        (nextJoin === 'JOIN' || nextJoin === 'INNER JOIN') &&
        isEmpty(next['on']) &&
        !/"cross"/iu.test(this.text)
      ) {
        item['as'] = null;
        next['join'] = 'CROSS JOIN';
      }
    });
    const [firstRaw, ...rest] = items;
    this.only(firstRaw as Raw, 'FROM item', ['db', 'table', 'as', 'expr', 'prefix']);
    const first = this.source(firstRaw as Raw);
    const joins: Join[] = rest.map((item) => {
      this.only(item, 'FROM item', ['join', 'on', 'db', 'table', 'as', 'expr', 'prefix']);
      const joinText = typeof item['join'] === 'string' ? item['join'].toUpperCase() : null;
      if (item['using']) throw this.unsupported('JOIN … USING');
      const kind: JoinKind | undefined = joinText === null ? 'comma' : JOINS[joinText];
      if (!kind) throw this.unsupported(`join "${joinText}"`);
      const onRaw = item['on'];
      if (isRaw(onRaw) && onRaw['type'] === 'expr_list') throw this.unsupported('join condition list');
      if (kind === 'cross' && !isEmpty(onRaw)) throw this.refuse('CROSS JOIN … ON', /\bCROSS\s+JOIN\b/iu);
      return { kind, source: this.source(item), on: onRaw ? this.expr(onRaw) : null };
    });
    return { first, joins };
  }

  private source(item: Raw): TableSource {
    const alias = ident(item['as']);
    if (alias !== null && KEYWORD_ALIASES.has(alias.toUpperCase())) throw this.misreadAlias(alias);
    if (isRaw(item['expr']) && isRaw(item['expr']['ast'])) {
      this.only(item['expr'], 'derived table', ['ast', 'tableList', 'columnList']);
      if (!isEmpty(item['prefix']))
        throw this.refuse(
          `${String(item['prefix']).toUpperCase()} before a derived table`,
          wordPattern(String(item['prefix'])),
        );
      if (alias?.includes('('))
        throw this.refuse(
          `column aliases after a table alias ("${alias}")`,
          /\)\s*(AS\s+)?[A-Za-z_][A-Za-z0-9_]*\s*\(/iu,
        );
      return { kind: 'derived', query: this.query(item['expr']['ast']), alias };
    }
    if (isRaw(item['expr']) && item['expr']['type'] === 'function') {
      const call = this.expr(item['expr']);
      if (call.kind !== 'function') throw this.unsupported('table function');
      // The parser keeps `AS s(value)` as the alias text "s(value)".
      const withColumns = alias === null ? null : /^([^()]+)\((.*)\)$/u.exec(alias);
      return {
        kind: 'table-function',
        call,
        alias: withColumns ? (withColumns[1] as string).trim() : alias,
        columns: withColumns
          ? (withColumns[2] as string).split(',').map((c) => c.trim().replace(/^"(.*)"$/u, '$1'))
          : [],
        lateral: typeof item['prefix'] === 'string' && item['prefix'].toUpperCase() === 'LATERAL',
      };
    }
    const table = ident(item['table']);
    if (table === null) throw this.unsupported('table source');
    if (alias?.includes('('))
      throw this.refuse(
        `column aliases after a table alias ("${alias}")`,
        new RegExp(`\\b${alias.slice(0, alias.indexOf('(')).trim()}\\s*\\(`, 'iu'),
      );
    if (typeof item['prefix'] === 'string' && item['prefix'] !== '')
      throw this.refuse(`${item['prefix'].toUpperCase()} before a table`);
    const db = ident(item['db']);
    return { kind: 'table', name: db ? `${db}.${table}` : table, alias };
  }

  private misreadAlias(alias: string): SqlParseError {
    const match = new RegExp(`\\b${alias}\\b`, 'iu').exec(this.text);
    const offset = match?.index ?? 0;
    const before = this.text.slice(0, offset).split('\n');
    const line = before.length;
    const column = (before[before.length - 1]?.length ?? 0) + 1;
    return refusal(
      `${this.dialect}: "${alias}" read as a table alias at line ${line}, column ${column} (${alias.toUpperCase()} JOIN is not supported)`,
      { line, column },
    );
  }

  private subquery(raw: unknown): Query | null {
    if (isRaw(raw) && isRaw(raw['ast'])) {
      this.only(raw, 'subquery', ['ast', 'tableList', 'columnList']);
      return this.query(raw['ast']);
    }
    if (isRaw(raw) && raw['type'] === 'expr_list' && Array.isArray(raw['value']) && raw['value'].length === 1) {
      const only = raw['value'][0];
      if (isRaw(only) && isRaw(only['ast'])) return this.query(only['ast']);
    }
    if (isRaw(raw) && raw['type'] === 'select') return this.query(raw);
    return null;
  }

  expr(raw: unknown): Expr {
    if (!isRaw(raw)) throw this.unsupported(`expression ${JSON.stringify(raw)}`);
    const outer = this.current;
    const valueSlot = this.valueSlot;
    this.valueSlot = false;
    if (raw['loc']) this.current = raw;
    try {
      return this.exprAt(raw, valueSlot);
    } finally {
      this.current = outer;
    }
  }

  /** An operand where a value is compared or matched: the right of `=`, a LIKE pattern, an IN item, a BETWEEN bound. */
  private value(raw: unknown): Expr {
    this.valueSlot = true;
    return this.expr(raw);
  }

  /** Set by `value` for the one expression converted next. */
  private valueSlot = false;

  /**
   * Whether "…" is a string here. PostgreSQL: never, it quotes identifiers. MySQL: always
   * (without ANSI_QUOTES). SQLite resolves "x" as a column when one is named x and as a
   * string otherwise; without the schema we read it as SQLite does in practice: a string
   * where a value is compared or matched (Spider's `WHERE name = "Bob"`, `LIKE "%a%"`), an
   * identifier anywhere else (`SELECT "name" FROM t`, `GROUP BY "x"`).
   */
  private doubleQuotedIsString(valueSlot: boolean): boolean {
    if (this.sourceDialect === 'postgresql') return false;
    if (this.sourceDialect === 'mysql') return true;
    return valueSlot;
  }

  private exprAt(raw: Raw, valueSlot: boolean): Expr {
    const nested = this.subquery(raw);
    if (nested) return { kind: 'subquery', query: nested };
    const type = raw['type'];
    this.only(raw, `expression "${String(type)}"`, EXPRESSION_KEYS[String(type)] ?? []);
    switch (type) {
      case 'column_ref': {
        const column = raw['column'];
        const table = ident(raw['table']);
        if (column === '*') return { kind: 'star', table };
        const inner = isRaw(column) && isRaw(column['expr']) ? column['expr'] : null;
        const name = ident(column);
        if (name === null) throw this.unsupported('column reference');
        // The SQLite and MySQL grammars read `age::integer` as one column named "age::integer".
        if (
          name.includes('::') &&
          ![`"${name}"`, `\`${name}\``, `[${name}]`].some((quoted) => this.text.includes(quoted))
        ) {
          throw this.unsupported(`"${name}" read as a column name (a :: cast)`);
        }
        if (
          inner &&
          inner['type'] === 'double_quote_string' &&
          table === null &&
          this.doubleQuotedIsString(valueSlot)
        ) {
          return { kind: 'string', value: name };
        }
        return { kind: 'column', table, name };
      }
      case 'star':
        return { kind: 'star', table: null };
      case 'number':
        return { kind: 'number', text: String(raw['value']) };
      // The parser keeps doubled quotes as written ('it''s'); the AST holds the value.
      case 'single_quote_string':
      case 'string':
        return { kind: 'string', value: String(raw['value']).replaceAll("''", "'") };
      case 'double_quote_string': {
        // The scanner has already made doubled quotes single, except in MySQL text.
        const written = String(raw['value']);
        const value = this.sourceDialect === 'mysql' ? written.replaceAll('""', '"') : written;
        return this.doubleQuotedIsString(valueSlot)
          ? { kind: 'string', value }
          : { kind: 'column', table: null, name: value };
      }
      case 'null':
        return { kind: 'null' };
      case 'bool':
      case 'boolean':
        return { kind: 'boolean', value: Boolean(raw['value']) };
      case 'binary_expr':
        return this.binary(raw);
      case 'unary_expr':
        return this.unary(raw);
      case 'aggr_func':
        return this.windowed(raw, this.filtered(raw, this.aggregate(raw)));
      case 'extract': {
        const args = raw['args'];
        if (!isRaw(args) || typeof args['field'] !== 'string') throw this.unsupported('EXTRACT');
        this.only(args, 'EXTRACT', ['field', 'source']);
        return { kind: 'extract', field: args['field'].toUpperCase(), source: this.expr(args['source']) };
      }
      case 'interval': {
        const value = raw['expr'];
        if (!isRaw(value) || (value['type'] !== 'single_quote_string' && value['type'] !== 'string'))
          throw this.unsupported('INTERVAL other than a quoted string');
        const unit = typeof raw['unit'] === 'string' && raw['unit'] !== '' ? raw['unit'].toUpperCase() : null;
        return { kind: 'interval', value: String(value['value']).replaceAll("''", "'"), unit };
      }
      case 'function':
      case 'window_func':
        return this.windowed(raw, this.call(raw));
      case 'case':
        return this.caseExpr(raw);
      case 'array': {
        const list = raw['expr_list'];
        const items = isRaw(list) && Array.isArray(list['value']) ? (list['value'] as unknown[]) : [];
        return { kind: 'array', items: items.map((item) => this.expr(item)) };
      }
      case 'cast':
        return this.cast(raw);
      default:
        throw this.refuse(`expression type "${String(type)}"`, wordPattern(String(type)), true);
    }
  }

  private binary(raw: Raw): Expr {
    const op = String(raw['operator']).toUpperCase();
    if (op !== 'AND' && op !== 'OR') {
      const hoisted = withoutLeadingNot(raw);
      if (hoisted) return { kind: 'not', operand: this.expr(hoisted) };
    }
    const comparison = COMPARISONS[op];
    if (comparison)
      return { kind: 'comparison', op: comparison, left: this.expr(raw['left']), right: this.value(raw['right']) };
    const arithmetic = ARITHMETIC[op];
    if (arithmetic)
      return { kind: 'arithmetic', op: arithmetic, left: this.expr(raw['left']), right: this.expr(raw['right']) };
    switch (op) {
      case 'AND':
      case 'OR':
        return this.logical(raw);
      case 'LIKE':
      case 'NOT LIKE':
      case 'ILIKE':
      case 'NOT ILIKE':
        return {
          kind: 'like',
          negated: op.startsWith('NOT '),
          insensitive: op.endsWith('ILIKE'),
          operand: this.expr(raw['left']),
          pattern: this.value(raw['right']),
        };
      case 'IN':
      case 'NOT IN': {
        const negated = op === 'NOT IN';
        const operand = this.expr(raw['left']);
        const query = this.subquery(raw['right']);
        if (query) return { kind: 'in-subquery', negated, operand, query };
        const list = raw['right'];
        if (!isRaw(list) || !Array.isArray(list['value'])) throw this.unsupported('IN operand');
        return { kind: 'in-list', negated, operand, values: (list['value'] as unknown[]).map((v) => this.value(v)) };
      }
      case 'BETWEEN':
      case 'NOT BETWEEN': {
        const bounds = raw['right'];
        if (!isRaw(bounds) || !Array.isArray(bounds['value']) || bounds['value'].length !== 2)
          throw this.unsupported('BETWEEN bounds');
        return {
          kind: 'between',
          negated: op === 'NOT BETWEEN',
          operand: this.expr(raw['left']),
          low: this.value(bounds['value'][0]),
          high: this.value(bounds['value'][1]),
        };
      }
      case 'IS':
      case 'IS NOT': {
        const right = raw['right'];
        if (!isRaw(right) || right['type'] !== 'null') throw this.unsupported(`${op} with a non-NULL operand`);
        return { kind: 'is-null', negated: op === 'IS NOT', operand: this.expr(raw['left']) };
      }
      default:
        // PostgreSQL's other operators (JSON, arrays, ranges) are symbols; words the parser
        // passes through here (SIMILAR TO, REGEXP, …) are not read.
        if (OTHER_OPERATOR.test(op))
          return { kind: 'operator', op, left: this.expr(raw['left']), right: this.expr(raw['right']) };
        throw this.unsupported(`operator "${op}"`);
    }
  }

  /**
   * node-sql-parser gives AND and OR the same precedence and nests them left to right, so
   * `a OR b AND c` comes back as `(a OR b) AND c`. The operands and operators are still in
   * written order, and explicitly parenthesized groups are marked, so we read the chain in
   * order and rebuild it with AND binding tighter than OR.
   */
  private logical(raw: Raw): Expr {
    const operands: unknown[] = [];
    const operators: ('and' | 'or')[] = [];
    const walk = (node: unknown, isRoot: boolean): void => {
      const op = isRaw(node) && node['type'] === 'binary_expr' ? String(node['operator']).toUpperCase() : '';
      if ((op === 'AND' || op === 'OR') && (isRoot || !(node as Raw)['parentheses'])) {
        walk((node as Raw)['left'], false);
        operators.push(op === 'AND' ? 'and' : 'or');
        walk((node as Raw)['right'], false);
      } else {
        operands.push(node);
      }
    };
    walk(raw, true);
    const converted = operands.map((o) => this.expr(o));
    const disjuncts: Expr[] = [];
    let current = converted[0] as Expr;
    operators.forEach((op, i) => {
      const next = converted[i + 1] as Expr;
      if (op === 'and') {
        current = { kind: 'logical', op: 'and', left: current, right: next };
      } else {
        disjuncts.push(current);
        current = next;
      }
    });
    disjuncts.push(current);
    return disjuncts
      .slice(1)
      .reduce<Expr>((left, right) => ({ kind: 'logical', op: 'or', left, right }), disjuncts[0] as Expr);
  }

  private caseExpr(raw: Raw): Expr {
    const whens: { when: Expr; then: Expr }[] = [];
    let otherwise: Expr | null = null;
    for (const arm of (raw['args'] as Raw[] | undefined) ?? []) {
      this.only(arm, 'CASE arm', ['cond', 'result']);
      if (arm['type'] === 'when') whens.push({ when: this.expr(arm['cond']), then: this.expr(arm['result']) });
      else if (arm['type'] === 'else') otherwise = this.expr(arm['result']);
      else throw this.unsupported(`CASE arm "${String(arm['type'])}"`);
    }
    if (whens.length === 0) throw this.unsupported('CASE without WHEN');
    return { kind: 'case', operand: raw['expr'] ? this.expr(raw['expr']) : null, whens, else: otherwise };
  }

  private cast(raw: Raw): Expr {
    const targets = raw['target'];
    const target = Array.isArray(targets) && targets.length === 1 && isRaw(targets[0]) ? targets[0] : null;
    if (!target || typeof target['dataType'] !== 'string') throw this.unsupported('cast target');
    this.only(target, 'cast target', ['dataType', 'length', 'scale']);
    const size =
      typeof target['length'] === 'number'
        ? `(${[target['length'], target['scale']].filter((n) => typeof n === 'number').join(', ')})`
        : '';
    return { kind: 'cast', operand: this.expr(raw['expr']), type: `${target['dataType'].toUpperCase()}${size}` };
  }

  /** `call FILTER (WHERE …)` when the parser node has a filter, else `call` itself. */
  private filtered(raw: Raw, call: Expr): Expr {
    const filter = raw['filter'];
    if (isEmpty(filter)) return call;
    if ((call.kind !== 'aggregate' && call.kind !== 'function') || !isRaw(filter)) throw this.unsupported('FILTER');
    this.only(filter, 'FILTER', ['keyword', 'parentheses', 'where']);
    return { kind: 'filtered', call, where: this.expr(filter['where']) };
  }

  /** `call OVER (…)` when the parser node has a window, else `call` itself. */
  private windowed(raw: Raw, call: Expr): Expr {
    const over = raw['over'];
    if (isEmpty(over)) return call;
    if (call.kind !== 'aggregate' && call.kind !== 'function' && call.kind !== 'filtered')
      throw this.unsupported('OVER after an expression that is not a call');
    // PostgreSQL: "DISTINCT is not implemented for window functions".
    if ((call.kind === 'filtered' ? call.call : call).distinct)
      throw this.refuse('DISTINCT in a window function', /\bDISTINCT\b/iu);
    if (!isRaw(over) || over['type'] !== 'window') throw this.unsupported('OVER clause');
    this.only(over, 'OVER', ['as_window_specification']);
    const spec = over['as_window_specification'];
    if (!isRaw(spec)) throw this.refuse('named window (OVER name)', /\bOVER\s+[A-Za-z_]/iu);
    this.only(spec, 'OVER', ['window_specification', 'parentheses']);
    const window = spec['window_specification'];
    if (!isRaw(window)) throw this.unsupported('window specification');
    if (!isEmpty(window['name'])) throw this.refuse('named window (OVER (name …))', /\bOVER\b/iu);
    this.only(window, 'window specification', ['name', 'partitionby', 'orderby', 'window_frame_clause']);
    const partitionRaw = Array.isArray(window['partitionby']) ? (window['partitionby'] as unknown[]) : [];
    const partitionBy = partitionRaw.map((item) => {
      let key: Expr;
      if (isRaw(item) && item['type'] === 'expr' && 'expr' in item) {
        this.only(item, 'PARTITION BY item', ['expr']);
        key = this.expr(item['expr']);
      } else key = this.expr(item);
      // The wrapper parser-compat.ts put around a key this grammar cannot read bare.
      return key.kind === 'function' && key.name === 'coalesce' && key.args.length === 1 ? (key.args[0] as Expr) : key;
    });
    const orderBy = this.orderItems(Array.isArray(window['orderby']) ? (window['orderby'] as unknown[]) : []);
    const frame = isEmpty(window['window_frame_clause']) ? null : this.frame(window['window_frame_clause']);
    const node: WindowCall = {
      kind: 'window',
      call: call as Aggregate | FunctionCall | Filtered,
      partitionBy,
      orderBy,
      frame,
    };
    return node;
  }

  /**
   * The parser writes a frame as `{ type: 'rows', expr: <bound> }` or as a BETWEEN whose left
   * is the unit and whose right holds two bounds; a bound is an "origin" word pair
   * (`UNBOUNDED PRECEDING`, `current row`) or a "number" whose value is `2 PRECEDING`.
   */
  private frame(raw: unknown): WindowFrame {
    if (!isRaw(raw)) throw this.unsupported('window frame');
    if (raw['type'] === 'binary_expr' && String(raw['operator']).toUpperCase() === 'BETWEEN') {
      const unitRaw = raw['left'];
      const bounds = raw['right'];
      const unit = isRaw(unitRaw) ? String(unitRaw['value']).toLowerCase() : '';
      if (
        (unit !== 'rows' && unit !== 'range') ||
        !isRaw(bounds) ||
        !Array.isArray(bounds['value']) ||
        bounds['value'].length !== 2
      ) {
        throw this.unsupported('window frame');
      }
      return { unit, start: this.frameBound(bounds['value'][0]), end: this.frameBound(bounds['value'][1]) };
    }
    const unit = String(raw['type']).toLowerCase();
    if (unit !== 'rows' && unit !== 'range') throw this.unsupported(`window frame "${unit}"`);
    return { unit, start: this.frameBound(raw['expr']), end: null };
  }

  private frameBound(raw: unknown): FrameBound {
    const text = isRaw(raw) ? String(raw['value']).trim().toLowerCase().replace(/\s+/gu, ' ') : '';
    if (text === 'unbounded preceding' || text === 'unbounded following' || text === 'current row')
      return { kind: text, offset: null };
    const m = /^([0-9]+) (preceding|following)$/u.exec(text);
    if (!m) throw this.unsupported(`window frame bound "${text}"`);
    return { kind: m[2] as 'preceding' | 'following', offset: { kind: 'number', text: m[1] as string } };
  }

  private unary(raw: Raw): Expr {
    const op = String(raw['operator']).toUpperCase();
    if (op === 'NOT EXISTS' || op === 'EXISTS') {
      const query = this.subquery(raw['expr']);
      if (!query) throw this.unsupported('EXISTS operand');
      return { kind: 'exists', negated: op === 'NOT EXISTS', query };
    }
    if (op === 'NOT' || op === '!') return { kind: 'not', operand: this.expr(raw['expr']) };
    if (op === '-') return { kind: 'negate', operand: this.expr(raw['expr']) };
    if (op === '+') return this.expr(raw['expr']);
    throw this.unsupported(`unary operator "${op}"`);
  }

  private aggregate(raw: Raw): Expr {
    const name = String(raw['name']).toLowerCase();
    const args = isRaw(raw['args']) ? raw['args'] : {};
    this.only(args, 'aggregate arguments', ['expr', 'distinct', 'orderby', 'separator']);
    const distinct = typeof args['distinct'] === 'string' && args['distinct'].toUpperCase() === 'DISTINCT';
    const orderRaw = Array.isArray(args['orderby']) ? (args['orderby'] as unknown[]) : [];
    const separator = isRaw(args['separator']) ? args['separator']['delimiter'] : undefined;
    if (AGGREGATES.has(name as AggregateName) && orderRaw.length === 0 && separator === undefined) {
      return { kind: 'aggregate', name: name as AggregateName, distinct, arg: this.expr(args['expr']) };
    }
    return {
      kind: 'function',
      name,
      args: [this.expr(args['expr']), ...(separator === undefined ? [] : [this.expr(separator)])],
      distinct,
      orderBy: this.orderItems(orderRaw),
    };
  }

  private call(raw: Raw): Expr {
    const nameParts =
      isRaw(raw['name']) && Array.isArray(raw['name']['name']) ? (raw['name']['name'] as unknown[]) : [raw['name']];
    const name = nameParts
      .map((part) => ident(part) ?? '')
      .join('.')
      .toLowerCase();
    // CURRENT_DATE and its kin come back as calls of a keyword with no argument list.
    const clock = name.toUpperCase();
    if (!('args' in raw) && nameParts.length === 1 && CLOCK_VALUES.has(clock))
      return { kind: 'clock', name: clock as ClockValue['name'] };
    const argsRaw = raw['args'];
    if (isRaw(argsRaw)) this.only(argsRaw, 'function arguments', ['value']);
    const argList = isRaw(argsRaw) && Array.isArray(argsRaw['value']) ? (argsRaw['value'] as unknown[]) : [];
    // `SELECT DISTINCT ON (a) a` comes back from the SQLite and MySQL grammars as a call of
    // a function named ON aliased `a`.
    if (name === 'on') throw this.refuse('DISTINCT ON', /\bDISTINCT\s+ON\b/iu);
    // And `LATERAL (SELECT …)` as a call of a function named LATERAL.
    if (name === 'lateral') throw this.refuse('LATERAL before a derived table', /\bLATERAL\b/iu);
    // Some aggregate calls (`count((SELECT …) - 1)`) come back as plain function calls.
    if (AGGREGATES.has(name as AggregateName) && argList.length === 1) {
      return { kind: 'aggregate', name: name as AggregateName, distinct: false, arg: this.expr(argList[0]) };
    }
    if (name === 'array' && argList.length === 1) {
      const query = this.subquery(argList[0]);
      if (query) return { kind: 'array-subquery', query };
    }
    // `NOT (a OR b)` comes back as a call of a function named NOT.
    if (name === 'not' && argList.length === 1) return { kind: 'not', operand: this.expr(argList[0]) };
    if (name === 'exists' || name === 'not exists') {
      const query = argList.length === 1 ? this.subquery(argList[0]) : null;
      if (!query) throw this.unsupported('EXISTS operand');
      return { kind: 'exists', negated: name === 'not exists', query };
    }
    return { kind: 'function', name, args: argList.map((a) => this.expr(a)), distinct: false, orderBy: [] };
  }
}
