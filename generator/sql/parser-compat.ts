/**
 * PostgreSQL that node-sql-parser's grammar does not take, rewritten into a spelling it does
 * take and that means the same, before the text is handed to it:
 *
 * - an expression after PARTITION BY other than a column or a call (`PARTITION BY CASE …
 *   END`, `PARTITION BY a.x + 1`) is wrapped in a one-argument `coalesce(…)`, which
 *   returns its argument; the adapter takes the wrapper off again when it converts;
 * - the argument of an aggregate after DISTINCT (`avg(DISTINCT p.price)`) is bracketed,
 *   `avg(DISTINCT (p.price))`; brackets leave no trace in the converted tree.
 *
 * So the SQL we emit is PostgreSQL's own idiom, and the workaround for the third-party
 * parser stays behind the adapter. Offsets in a parse error of a rewritten text may point a
 * few characters past where the error is; only such texts are rewritten.
 *
 * @example
 * compatibleText('SELECT rank() OVER (PARTITION BY CASE WHEN a THEN 1 END ORDER BY b) FROM t')
 * // 'SELECT rank() OVER (PARTITION BY coalesce(CASE WHEN a THEN 1 END) ORDER BY b) FROM t'
 */

interface Token {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Nesting depth of brackets at the token (an opening bracket counts at its outer depth). */
  readonly depth: number;
}

/** Words, numbers, quoted runs and single characters, with comments and spaces skipped. */
function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      continue;
    }
    let end = i + 1;
    if (c === "'" || c === '"' || c === '`') {
      while (end < sql.length && !(sql[end] === c && sql[end + 1] !== c)) end += sql[end] === c ? 2 : 1;
      end = Math.min(sql.length, end + 1);
    } else if (/[\w$]/u.test(c)) {
      while (end < sql.length && /[\w$]/u.test(sql[end] as string)) end++;
    }
    if (c === ')') depth = Math.max(0, depth - 1);
    out.push({ text: sql.slice(i, end), start: i, end, depth });
    if (c === '(') depth++;
    i = end;
  }
  return out;
}

const word = (t: Token | undefined, w: string): boolean => t !== undefined && t.text.toUpperCase() === w;

/** `a`, `a.b` (quoted parts allowed), or a call `f(…)` spanning the whole item. */
function isPlainItem(tokens: readonly Token[]): boolean {
  if (tokens.length === 0) return true;
  const name = (t: Token | undefined): boolean =>
    t !== undefined && /^(?:[A-Za-z_][\w$]*|"(?:[^"]|"")*")$/u.test(t.text);
  if (tokens.length === 1) return name(tokens[0]);
  if (tokens.length === 3 && name(tokens[0]) && tokens[1]?.text === '.' && name(tokens[2])) return true;
  // A call: a name, its bracket, and the matching bracket last.
  if (name(tokens[0]) && tokens[1]?.text === '(' && tokens[tokens.length - 1]?.text === ')') {
    const inner = tokens[1].depth;
    return tokens.slice(2, -1).every((t) => t.depth > inner);
  }
  return false;
}

/** The text rewritten where node-sql-parser needs it; the same string when nothing does. */
export function compatibleText(sql: string): string {
  if (!/PARTITION\s+BY|\(\s*DISTINCT\b/iu.test(sql)) return sql;
  const tokens = tokenize(sql);
  const inserts: { at: number; text: string }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (word(t, 'PARTITION') && word(tokens[i + 1], 'BY')) {
      const depth = t.depth;
      let item: Token[] = [];
      const close = (): void => {
        if (!isPlainItem(item))
          inserts.push(
            { at: (item[0] as Token).start, text: 'coalesce(' },
            { at: (item[item.length - 1] as Token).end, text: ')' },
          );
        item = [];
      };
      let j = i + 2;
      for (; j < tokens.length; j++) {
        const u = tokens[j] as Token;
        if (
          u.depth < depth ||
          (u.depth === depth &&
            ((word(u, 'ORDER') && word(tokens[j + 1], 'BY')) ||
              word(u, 'ROWS') ||
              word(u, 'RANGE') ||
              word(u, 'GROUPS')))
        )
          break;
        if (u.depth === depth && u.text === ',') close();
        else item.push(u);
      }
      close();
      i = j - 1;
      continue;
    }
    // fn(DISTINCT arg) with fn other than count: arg in brackets of its own.
    if (
      t.text === '(' &&
      word(tokens[i + 1], 'DISTINCT') &&
      tokens[i - 1] &&
      /^(?:sum|avg|min|max)$/iu.test((tokens[i - 1] as Token).text)
    ) {
      const depth = t.depth;
      let j = i + 2;
      while (j < tokens.length && !((tokens[j] as Token).depth === depth && (tokens[j] as Token).text === ')')) j++;
      const arg = tokens.slice(i + 2, j);
      const first = arg[0];
      const last = arg[arg.length - 1];
      const bracketed =
        first?.text === '(' && last?.text === ')' && arg.slice(1, -1).every((u) => u.depth > first.depth);
      if (first && last && !bracketed) inserts.push({ at: first.start, text: '(' }, { at: last.end, text: ')' });
    }
  }
  if (inserts.length === 0) return sql;
  inserts.sort((a, b) => a.at - b.at);
  let out = '';
  let copied = 0;
  for (const ins of inserts) {
    out += sql.slice(copied, ins.at) + ins.text;
    copied = ins.at;
  }
  return out + sql.slice(copied);
}
