/**
 * Which SQLite gold queries Spider's test-suite evaluator can read, and the form it reads
 * them in. That evaluator parses each gold query with its own small grammar before it runs
 * it, and a query it cannot read stops the whole run, with no score. Its grammar takes:
 *
 * - `SELECT [DISTINCT] item, …` where an item is a column, `agg(col)`, `agg(DISTINCT col)`,
 *   `count(*)` or two columns joined by `+ - * /`, and no output name (`AS n` stops it);
 * - `FROM table [AS alias] (JOIN table [AS alias] ON cond)*`: no `LEFT`, `CROSS` or comma
 *   joins, no derived table with an alias;
 * - conditions `unit [NOT] op value` joined by `AND`/`OR` without parentheses, `op` one of
 *   `= != < > <= >= BETWEEN LIKE IN`, a value a string without quotes inside, an unsigned
 *   number, a column or a parenthesized query (`IN` takes only a query);
 * - `GROUP BY`, `HAVING` (after a `GROUP BY`: it does not end a `WHERE`), `ORDER BY …
 *   [ASC|DESC]`, `LIMIT n`, and `UNION`, `INTERSECT`, `EXCEPT` (not `UNION ALL`);
 * - names it finds in the database's own tables: an alias must not be a table's name, and it
 *   reads every `x AS y` of the whole text as one alias table;
 * - tokens as nltk's `word_tokenize` splits them: it leaves `a.x=5` or `a+b` whole, so an
 *   operator needs a space on each side, and it splits `cannot` or `gonna` in two;
 * - a column compared with a column swallows what follows up to the next `AND`, `,`, `)` or
 *   clause: an `OR` there is lost or breaks the reading.
 *
 * `spiderForm` accepts a query only when every token falls inside that grammar, reading it
 * more strictly than the evaluator does (no `IS NULL`, `EXISTS` or functions; `NULLS FIRST`
 * or `LAST` only at the end of the whole text, where the evaluator stops reading, with at
 * most a `LIMIT n` after it). The form it returns is the query with its output names removed
 * (`count(*) AS n` → `count(*)`), which leaves the rows, and so the answer, unchanged; a query
 * whose other clauses name an output is refused. Whether the evaluator can open the database
 * at all is `readSpiderSchema`'s question (sqlite-files.ts): a table it cannot list makes every
 * query on that database unreadable.
 */

/** The tables of a database and their columns, lower-cased as the evaluator reads them. */
export type SpiderSchema = ReadonlyMap<string, ReadonlySet<string>>;

interface Token {
  readonly kind: 'word' | 'qualified' | 'string' | 'number' | 'punct';
  /** Lower-cased for words, as the evaluator's tokenizer does; as written otherwise. */
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

const AGGREGATES = new Set(['max', 'min', 'count', 'sum', 'avg']);
const CLAUSES = new Set(['select', 'from', 'where', 'group', 'order', 'limit', 'intersect', 'union', 'except']);
const COMPARISONS = new Set(['=', '!=', '<', '>', '<=', '>=']);
const UNIT_OPS = new Set(['+', '-', '*', '/']);
/**
 * Words the evaluator's grammar gives a place (its clause, join, condition, operator,
 * aggregate and order lists, `none` among them): none of them is read as a bare name.
 */
const KEYWORDS = new Set([
  ...AGGREGATES,
  ...CLAUSES,
  ...['distinct', 'as', 'join', 'on', 'and', 'or', 'not', 'between', 'like', 'in', 'is', 'exists', 'none'],
  ...['by', 'asc', 'desc', 'having', 'all', 'null'],
]);

/** Words nltk's `word_tokenize` splits in two (`cannot` → `can`, `not`), in a qualified name too. */
const SPLIT_WORDS = new Set(['cannot', 'gimme', 'gonna', 'gotta', 'lemme', 'wanna']);

/** What ends a column on the right of a comparison, for the evaluator's `parse_value`. */
const AFTER_COLUMN_VALUE = new Set([',', ')', 'and', 'join', 'on', 'as', ...CLAUSES]);

/** Text its exec step rewrites everywhere, string literals included (`postprocess`). */
const REWRITTEN = /[><!] =/u;

const TOKEN =
  /\s+|'([^'"]*)'(?!')|(\d+(?:\.\d+)?)(?![\w.])|([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)(?![\w.])|([a-z_][a-z0-9_]*)(?![\w.])|(!=|<=|>=|[(),*=<>+\-/])/giy;

/**
 * The tokens of `sql`, or undefined at a character the grammar has no token for (a `"`, `;`,
 * `||`, `<>`, a quote inside a string), at an operator without a space on each side, or at a
 * word nltk would split.
 */
function tokenize(sql: string): Token[] | undefined {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < sql.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(sql);
    if (m === null) return undefined;
    const end = TOKEN.lastIndex;
    if (m[5] !== undefined && !spaced(sql, m[5], start, end)) return undefined;
    if (m[1] !== undefined && REWRITTEN.test(m[0])) return undefined;
    const words = (m[3] ?? m[4])?.toLowerCase().split('.') ?? [];
    if (words.some((w) => SPLIT_WORDS.has(w))) return undefined;
    if (m[1] !== undefined) out.push({ kind: 'string', text: m[0], start, end });
    else if (m[2] !== undefined) out.push({ kind: 'number', text: m[2], start, end });
    else if (m[3] !== undefined) out.push({ kind: 'qualified', text: m[3].toLowerCase(), start, end });
    else if (m[4] !== undefined) out.push({ kind: 'word', text: m[4].toLowerCase(), start, end });
    else if (m[5] !== undefined) out.push({ kind: 'punct', text: m[5], start, end });
  }
  return out;
}

/**
 * Whether nltk leaves the operator a token of its own: brackets and a comma before a space
 * always are; `*` is when it stands between brackets or spaces (`count(*)`, `SELECT *`);
 * any other operator needs a space on each side.
 */
function spaced(sql: string, op: string, start: number, end: number): boolean {
  const before = sql[start - 1];
  const after = sql[end];
  const space = (c: string | undefined): boolean => c === undefined || /\s/u.test(c);
  if (op === '(' || op === ')') return true;
  if (op === ',') return space(after);
  if (op === '*') return (space(before) || before === '(') && (space(after) || after === ')');
  return space(before) && space(after);
}

class Refused extends Error {}

/**
 * A recursive reading of the tokens by the grammar above. With `outputNames` set, a select
 * item may carry `AS name`, and the positions of those two tokens are collected; without it
 * (the second reading, of the tokens without them) it may not, and every name is looked up.
 */
class Reader {
  private at = 0;
  /** How many parentheses of subqueries the reader is inside. */
  private depth = 0;
  /** Token positions of each `AS name` after a select item. */
  readonly names: number[] = [];

  constructor(
    private readonly toks: readonly Token[],
    private readonly schema: SpiderSchema,
    private readonly aliases: ReadonlyMap<string, string>,
    private readonly outputNames: boolean,
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.toks[this.at + offset];
  }
  private is(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t !== undefined && t.kind !== 'string' && t.text === text;
  }
  private take(text: string): void {
    if (!this.is(text)) throw new Refused(text);
    this.at++;
  }
  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.at++;
    return true;
  }
  private fail(): never {
    throw new Refused(this.peek()?.text ?? 'end');
  }

  /** The whole text: one query and nothing after it. */
  read(): void {
    this.query();
    if (this.at !== this.toks.length) this.fail();
  }

  private query(): void {
    this.select();
    if (this.is('union') && this.is('all', 1)) this.fail();
    if (this.accept('union') || this.accept('intersect') || this.accept('except')) this.query();
  }

  private select(): void {
    this.take('select');
    this.accept('distinct');
    // The FROM comes first for the columns: the items name the tables it opens.
    const itemsAt = this.at;
    while (this.peek() !== undefined && !this.is('from')) this.at++;
    const fromAt = this.at;
    this.take('from');
    const tables = this.from();
    const afterFrom = this.at;
    this.at = itemsAt;
    for (;;) {
      this.selectItem(tables);
      if (this.outputNames && this.is('as')) {
        this.names.push(this.at, this.at + 1);
        this.at++;
        if (this.peek()?.kind !== 'word') this.fail();
        this.at++;
      }
      if (!this.accept(',')) break;
    }
    if (this.at !== fromAt) this.fail();
    this.at = afterFrom;
    if (this.accept('where')) this.condition(tables);
    if (this.accept('group')) {
      this.take('by');
      do this.colUnit(tables);
      while (this.accept(','));
      if (this.accept('having')) this.condition(tables);
    }
    if (this.accept('order')) {
      this.take('by');
      do {
        this.valUnit(tables);
        if (!this.accept('asc')) this.accept('desc');
        // The evaluator stops reading a query at `NULLS`: harmless at the end of the whole
        // text (it runs the text as written), fatal inside parentheses.
        if (this.depth === 0 && this.is('nulls') && (this.is('first', 1) || this.is('last', 1))) {
          this.at += 2;
          if (!this.accept('limit')) break;
          if (this.peek()?.kind !== 'number') this.fail();
          this.at++;
          break;
        }
      } while (this.accept(','));
    }
    if (this.accept('limit')) {
      const n = this.peek();
      if (n?.kind !== 'number' || !/^\d+$/u.test(n.text)) this.fail();
      this.at++;
    }
  }

  private selectItem(tables: readonly string[]): void {
    const t = this.peek();
    if (t?.kind === 'word' && AGGREGATES.has(t.text) && this.is('(', 1)) {
      this.at++;
      this.take('(');
      if (this.accept('distinct') || t.text !== 'count' || !this.is('*')) this.column(tables);
      else this.at++;
      if (this.peek() !== undefined && UNIT_OPS.has(this.peek()?.text as string) && !this.is(')')) {
        this.at++;
        this.column(tables);
      }
      this.take(')');
      return;
    }
    this.valUnit(tables);
  }

  /** The tables a FROM opens, by their names in the database. */
  private from(): string[] {
    const tables = [this.tableUnit()];
    while (this.accept('join')) {
      tables.push(this.tableUnit());
      this.take('on');
      this.condition(tables);
    }
    // The evaluator's FROM ends only at a clause's word or a `)`; anything else it reads as a table.
    const next = this.peek();
    if (next !== undefined && next.kind !== 'string' && !CLAUSES.has(next.text) && next.text !== ')') this.fail();
    if (next?.kind === 'string') this.fail();
    return tables;
  }

  private tableUnit(): string {
    const t = this.peek();
    if (t?.kind !== 'word' || !this.schema.has(t.text)) this.fail();
    this.at++;
    if (this.accept('as')) {
      if (this.peek()?.kind !== 'word') this.fail();
      this.at++;
    }
    return t.text;
  }

  private condition(tables: readonly string[]): void {
    do this.conditionUnit(tables);
    while (this.accept('and') || this.accept('or'));
  }

  private conditionUnit(tables: readonly string[]): void {
    this.valUnit(tables);
    this.accept('not');
    const op = this.peek();
    if (op === undefined || op.kind === 'string') this.fail();
    this.at++;
    if (op.text === 'between') {
      this.literal();
      this.take('and');
      this.literal();
    } else if (op.text === 'in') this.subquery();
    else if (op.text === 'like') {
      if (this.peek()?.kind !== 'string') this.fail();
      this.at++;
    } else if (COMPARISONS.has(op.text)) {
      if (this.value(tables) === 'column') {
        const next = this.peek();
        if (next !== undefined && (next.kind === 'string' || !AFTER_COLUMN_VALUE.has(next.text))) this.fail();
      }
    } else this.fail();
  }

  private literal(): void {
    const t = this.peek();
    if (t?.kind !== 'string' && t?.kind !== 'number') this.fail();
    this.at++;
  }

  /** A comparison's right side, and what it was. */
  private value(tables: readonly string[]): 'query' | 'literal' | 'column' {
    if (this.is('(')) {
      this.subquery();
      return 'query';
    }
    if (this.peek()?.kind === 'string' || this.peek()?.kind === 'number') {
      this.at++;
      return 'literal';
    }
    this.column(tables);
    return 'column';
  }

  private subquery(): void {
    this.take('(');
    this.depth++;
    this.query();
    this.depth--;
    this.take(')');
  }

  private valUnit(tables: readonly string[]): void {
    const block = this.accept('(');
    this.colUnit(tables);
    if (this.peek()?.kind === 'punct' && UNIT_OPS.has(this.peek()?.text as string)) {
      this.at++;
      this.colUnit(tables);
    }
    if (block) this.take(')');
  }

  private colUnit(tables: readonly string[]): void {
    const t = this.peek();
    if (t?.kind === 'word' && AGGREGATES.has(t.text)) {
      this.at++;
      this.take('(');
      this.accept('distinct');
      if (t.text === 'count' && this.accept('*')) {
        this.take(')');
        return;
      }
      this.column(tables);
      this.take(')');
      return;
    }
    this.accept('distinct');
    this.column(tables);
  }

  /** A column the evaluator finds: `alias.col` through its alias table, or a bare name in a table of this FROM. */
  private column(tables: readonly string[]): void {
    const t = this.peek();
    if (t === undefined) this.fail();
    if (t.kind === 'qualified') {
      // The output names are still in the first reading's tokens: only the second looks names up.
      if (this.outputNames) {
        this.at++;
        return;
      }
      const [alias, col] = t.text.split('.') as [string, string];
      const table = this.aliases.get(alias) ?? (this.schema.has(alias) ? alias : undefined);
      if (table === undefined || !this.schema.get(table)?.has(col)) this.fail();
    } else if (t.kind === 'word') {
      if (KEYWORDS.has(t.text)) this.fail();
      if (!this.outputNames && !tables.some((table) => this.schema.get(table)?.has(t.text))) this.fail();
    } else if (!(t.kind === 'punct' && t.text === '*')) this.fail();
    this.at++;
  }
}

/**
 * Every `x AS y` of the tokens as the evaluator reads it (one table for the whole text), or
 * undefined when an alias names a table, is bound twice, or stands for something that is not
 * a table.
 */
function aliasTable(toks: readonly Token[], schema: SpiderSchema): Map<string, string> | undefined {
  const out = new Map<string, string>();
  for (let i = 0; i < toks.length; i++) {
    if (toks[i]?.kind !== 'word' || toks[i]?.text !== 'as') continue;
    const table = toks[i - 1]?.text;
    const alias = toks[i + 1]?.text;
    if (table === undefined || alias === undefined || !schema.has(table) || schema.has(alias) || KEYWORDS.has(alias))
      return undefined;
    if (out.has(alias) && out.get(alias) !== table) return undefined;
    out.set(alias, table);
  }
  return out;
}

/**
 * The query as Spider's evaluator reads it (its output names removed), or undefined when its
 * grammar may not read it.
 *
 * @example
 * spiderForm('SELECT count(*) AS n FROM account AS a WHERE a.kind = \'x\'', schema);
 * // 'SELECT count(*) FROM account AS a WHERE a.kind = \'x\''
 * spiderForm('SELECT a.id FROM account AS a LEFT JOIN post AS p ON p.author = a.id', schema); // undefined
 */
export function spiderForm(sql: string, schema: SpiderSchema): string | undefined {
  const toks = tokenize(sql);
  if (toks === undefined) return undefined;
  try {
    const first = new Reader(toks, schema, new Map(), true);
    first.read();
    const dropped = new Set(first.names);
    const names = new Set(first.names.filter((_, i) => i % 2 === 1).map((at) => toks[at]?.text));
    const kept = toks.filter((_, i) => !dropped.has(i));
    // A name left in the other clauses read an output, which the form no longer has.
    if (kept.some((t) => t.kind === 'word' && names.has(t.text))) return undefined;
    const aliases = aliasTable(kept, schema);
    if (aliases === undefined) return undefined;
    new Reader(kept, schema, aliases, false).read();
    let out = '';
    let from = 0;
    for (let i = 0; i < first.names.length; i += 2) {
      const as = toks[first.names[i] as number] as Token;
      const name = toks[first.names[i + 1] as number] as Token;
      out += sql.slice(from, as.start).trimEnd();
      from = name.end;
    }
    return out + sql.slice(from);
  } catch (e) {
    if (e instanceof Refused) return undefined;
    throw e;
  }
}
