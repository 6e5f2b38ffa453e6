/**
 * Turns a skeleton into SQL that parses, by putting neutral names and values in its
 * placeholders: `<table>` → `t1`, `<column:numeric>` → `n1`, `<value:text>` → `'v'`, …
 *
 * The result is not meant to run anywhere; it exists so a sampled skeleton can be read back
 * by the parser adapter, which is how the round-trip test proves every sampled skeleton is
 * SQL the rest of the pipeline can handle. Numbers are 7, never 1, because `LIMIT 1` is a
 * terminal of its own.
 *
 * @example
 * instantiateSkeleton(['SELECT', '<column>', 'FROM', '<table>', 'LIMIT', '1']);
 * // 'SELECT c1 FROM t1 LIMIT 1'
 */
const AGGREGATES = ['max', 'min', 'sum', 'avg', 'count'] as const;

/** One function of each kind (`<fn:text>` → `upper`), named so the extractor reads it back as that kind. */
const FUNCTIONS: Readonly<Record<string, string>> = {
  text: 'upper',
  numeric: 'round',
  date: 'date_trunc',
  agg: 'array_agg',
  '': 'md5',
};
const TYPES: Readonly<Record<string, string>> = {
  numeric: 'REAL',
  text: 'TEXT',
  date: 'DATE',
  boolean: 'BOOLEAN',
  '': 'JSONB',
};

const STRUCTURAL = new Set(['COALESCE', 'NULLIF', 'GREATEST', 'LEAST', 'CAST', 'EXTRACT']);

/** How many arguments the call whose name is tokens[i] has (tokens[i + 1] is its parenthesis). */
function argumentCount(tokens: readonly string[], i: number): number {
  let depth = 0;
  let count = 0;
  for (let j = i + 1; j < tokens.length; j++) {
    const t = tokens[j] as string;
    if (t === '(' || t === '[') depth++;
    else if (t === ')' || t === ']') {
      if (--depth === 0) return j === i + 2 ? 0 : count + 1;
    } else if (t === ',' && depth === 1) count++;
  }
  return count;
}

export function instantiateSkeleton(tokens: readonly string[]): string {
  const counters = new Map<string, number>();
  const next = (prefix: string): string => {
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    return `${prefix}${n}`;
  };
  let aggregates = 0;
  let text = '';
  let glue = false;
  for (const [index, token] of tokens.entries()) {
    // The parser takes DISTINCT inside COUNT only.
    const word = token === '<agg>' && tokens[index + 2] === 'DISTINCT' ? 'count' : fill(token, index);
    // The parser reads `max(` but not `max (`: an aggregate name sticks to its parenthesis.
    text += text === '' || (glue && word === '(') ? word : ` ${word}`;
    // Some of the parser's rules (a window's ORDER BY) read a call only when its name touches
    // the parenthesis, so every call is written so.
    glue = token === '<agg>' || token === 'COUNT' || token.startsWith('<fn') || STRUCTURAL.has(token);
  }
  return text;

  function fill(token: string, index: number): string {
    const fn = /^<fn(?::([a-z]+))?>$/u.exec(token);
    if (fn) {
      const kind = fn[1] ?? '';
      const args = argumentCount(tokens, index);
      // The parser reads `lag()` with OVER only with an argument, `rank()` only without.
      if (kind === 'window') return args === 0 ? 'rank' : 'lag';
      if (kind === 'agg') return args >= 2 ? 'string_agg' : 'array_agg';
      return FUNCTIONS[kind] as string;
    }
    const type = /^<type(?::([a-z]+))?>$/u.exec(token);
    if (type) return TYPES[type[1] ?? ''] as string;
    switch (token) {
      case '<table>':
        return next('t');
      case '<column>':
        return next('c');
      case '<column:numeric>':
        return next('n');
      case '<column:text>':
        return next('s');
      case '<alias>':
        return next('d');
      case '<value>':
      case '<value:number>':
        return '7';
      case '<value:text>':
        return "'v'";
      case '<value:pattern>':
        return "'%v%'";
      case '<value:interval>':
        return "'1 day'";
      case '<agg>':
        return AGGREGATES[aggregates++ % AGGREGATES.length] as string;
      default:
        return token;
    }
  }
}
