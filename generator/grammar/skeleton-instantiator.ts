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
    const word = token === '<agg>' && tokens[index + 2] === 'DISTINCT' ? 'count' : fill(token);
    // The parser reads `max(` but not `max (`: an aggregate name sticks to its parenthesis.
    text += text === '' || (glue && word === '(') ? word : ` ${word}`;
    glue = token === '<agg>' || token === 'COUNT';
  }
  return text;

  function fill(token: string): string {
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
      case '<agg>':
        return AGGREGATES[aggregates++ % AGGREGATES.length] as string;
      default:
        return token;
    }
  }
}
