import type { Expr, Qualify, WindowExpr } from '../../query/conceptual-query.ts';

/**
 * Window functions and top-N per group in English, for the query describer. Each phrase states
 * what decides the value: which rows it looks at (the partition), in what order with every
 * tie-break, what tied rows get (rank: shared with gaps, dense rank: shared without gaps),
 * what the first or last row of lag/lead gets, and that a running total includes the rows
 * tied with the current one.
 */

/** What the window describer needs from the query describer. */
export interface WindowWords {
  /** An expression in words; `grouped` inside a grouped query's aggregates. */
  expr(e: Expr): string;
  /** Whether an expression may be missing (NULL). */
  nullable(e: Expr): boolean;
  /** Records a fact the question must state, as the describer's mentions. */
  mention(construct: string, ...anyOf: (readonly string[])[]): void;
  /** "row", or "group" when the query is grouped. */
  unit(): string;
}

/** "among the rows with the same …" or "among all rows". */
function scope(w: WindowExpr, words: WindowWords): string {
  const keys = w.partitionBy ?? [];
  if (keys.length === 0) return `among all ${words.unit()}s`;
  words.mention('window-partition', ['with the same']);
  return `among the ${words.unit()}s with the same ${keys.map((k) => words.expr(k).replace(/^the /u, '')).join(' and the same ')}`;
}

/** "sorted by … in descending order, ties broken by …", NULL placement included. */
function order(w: WindowExpr, words: WindowWords): string {
  const items = w.orderBy ?? [];
  if (items.length === 0) return '';
  const keys = items.map((o) => {
    // PostgreSQL sorts NULLs as larger than every value, in windows as elsewhere.
    const nulls = words.nullable(o.expr)
      ? o.direction === 'desc'
        ? ', missing values first'
        : ', missing values last'
      : '';
    // The concise style shortens these to "missing first" and "ties by".
    if (nulls) words.mention('window-order-nulls', [nulls.slice(2)], [nulls.slice(2).replace(' values', '')]);
    return `${words.expr(o.expr)} in ${o.direction === 'desc' ? 'descending' : 'ascending'} order${nulls}`;
  });
  words.mention('window-order', ['sorted by']);
  if (keys.length === 1) return `sorted by ${keys[0]}`;
  words.mention('window-tie-break', ['ties broken by'], ['ties by']);
  return `sorted by ${keys[0]}, ties broken by ${keys.slice(1).join(', then by ')}`;
}

/**
 * A window function as a noun phrase, starting with "the".
 * @example
 * describeWindow({ kind: 'window', fn: 'rank', partitionBy: [kind], orderBy: [{ expr: price, direction: 'desc' }] }, words)
 * // the rank of the row among the rows with the same kind of the product, sorted by the price of the
 * // product in descending order (tied rows share a rank and the next rank skips ahead: 1, 1, 3)
 */
export function describeWindow(w: WindowExpr, words: WindowWords): string {
  const among = scope(w, words);
  const sorted = order(w, words);
  const unit = words.unit();
  switch (w.fn) {
    case 'row_number':
      return `the position (1, 2, 3, …) of the ${unit} ${among}, ${sorted}`;
    case 'rank':
      words.mention('window-ties', ['share a rank']);
      return `the rank of the ${unit} ${among}, ${sorted} (tied ${unit}s share a rank and the next rank skips ahead: 1, 1, 3)`;
    case 'dense_rank':
      words.mention('window-ties', ['share a rank']);
      return `the rank of the ${unit} ${among}, ${sorted} (tied ${unit}s share a rank, with no gaps: 1, 1, 2)`;
    case 'lag':
    case 'lead': {
      const n = w.offset ?? 1;
      const before = w.fn === 'lag';
      const where =
        n === 1 ? `just ${before ? 'before' : 'after'} it` : `${n} ${unit}s ${before ? 'before' : 'after'} it`;
      const edge =
        n === 1 ? `the ${before ? 'first' : 'last'} ${unit}` : `the ${before ? 'first' : 'last'} ${n} ${unit}s`;
      words.mention('window-edge', [`empty for ${edge}`]);
      return `${words.expr(w.arg as Expr)}, taken from the ${unit} ${where} ${among}, ${sorted} (empty for ${edge})`;
    }
    case 'sum':
    case 'avg':
    case 'count': {
      const what =
        w.fn === 'count'
          ? w.arg === undefined
            ? `the number of ${unit}s`
            : `the number of known values of ${words.expr(w.arg)}`
          : `${w.fn === 'sum' ? 'the total' : 'the average'} of ${words.expr(w.arg as Expr)}${words.nullable(w.arg as Expr) ? ', ignoring missing values' : ''}`;
      if (w.fn !== 'count' && words.nullable(w.arg as Expr))
        words.mention('null-handling', ['ignoring missing values'], ['ignoring missing']);
      if (!sorted) return `${what} ${among}`;
      words.mention('window-running', ['up to and including']);
      return `${what.replace(/^the /u, 'the running ')} ${among}, ${sorted}, counting the ${unit}s up to and including this one and any tied with it`;
    }
  }
}

const OPS: Record<Qualify['op'], string> = {
  '=': 'is',
  '<>': 'is not',
  '<': 'is less than',
  '<=': 'is at most',
  '>': 'is greater than',
  '>=': 'is at least',
};

/** ", keeping only the rows whose rank … is at most 3": the qualify filter. */
export function describeQualify(q: Qualify, words: WindowWords): string {
  words.mention('qualify', [String(q.value)]);
  return `, keeping only the ${words.unit()}s whose ${describeWindow(q.window, words).replace(/^the /u, '')} ${OPS[q.op]} ${q.value}`;
}
