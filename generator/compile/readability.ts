/**
 * The readability checks on printed SQL: the habits of machine-made SQL that a careful
 * engineer does not have, each a named check over the text the compiler prints (one clause
 * a line, `AS` before every alias). The compile rules exist to remove them; `generate`
 * rejects a candidate whose SQL still shows one (`unreadable-sql:<check>`, which should
 * never fire), and the generation tests hold every group they produce to them.
 *
 * @example
 * readabilityFindings("SELECT CASE WHEN TRUE THEN 'A' END AS k FROM t AS t")
 * // [{ check: 'constant-case', excerpt: "CASE WHEN TRUE THEN 'A' END" }]
 */

export const READABILITY_CHECKS = [
  /** `CASE WHEN TRUE THEN …` or an arm `WHEN FALSE`: a condition known before the query runs. */
  'constant-case',
  /** A CASE arm no row can reach: every value it tests an earlier arm took already. */
  'unreachable-arm',
  /** A LEFT JOIN to a table whose alias nothing but its own ON clause (or GROUP BY) reads. */
  'unused-left-join',
  /** `coalesce(x)` of one argument: the value itself. */
  'single-coalesce',
  /** A grouped query in a derived table filtered outside it: the filter is its HAVING. */
  'having-in-derived-table',
  /** Two bounds on one expression in one clause where one implies the other (`x >= 53 AND x > 34`). */
  'implied-bound',
  /** `x IS NOT NULL` beside a comparison of `x` in the same clause. */
  'implied-not-null',
  /** `NOT (x = v)` for `x <> v` (and `NOT (x IS NULL)`, `NOT (x IN …)`…). */
  'negated-comparison',
  /** An output named after its function, `count(*) AS count`: not after what it counts. */
  'generic-column-name',
  /** A column aliased to its own name, `t.tag AS tag`. */
  'self-alias',
  /** A clause wholly in brackets, `WHERE (a OR b)`. */
  'bracketed-clause',
] as const;

export type ReadabilityCheck = (typeof READABILITY_CHECKS)[number];

export interface ReadabilityFinding {
  readonly check: ReadabilityCheck;
  /** The text that shows it, cut to one line. */
  readonly excerpt: string;
}

/**
 * String literals replaced by numbered placeholders (`'#0'`, one number per distinct text),
 * so no check reads inside one and equal literals stay equal; `restore` puts them back.
 */
function maskLiterals(sql: string): { text: string; restore: (masked: string) => string } {
  const numbers = new Map<string, number>();
  const texts: string[] = [];
  const text = sql.replace(/'(?:[^']|'')*'/gu, (m) => {
    let n = numbers.get(m);
    if (n === undefined) numbers.set(m, (n = texts.push(m) - 1));
    return `'#${n}'`;
  });
  return { text, restore: (masked) => masked.replace(/'#(\d+)'/gu, (_, n: string) => texts[Number(n)] ?? '') };
}

/** The index of the bracket closing the one opening at `open`, or -1. */
function closing(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Splits at `separator` (a sticky pattern) where it stands outside brackets; each part with the separator before it. */
function splitTopWith(text: string, separator: RegExp): { before: string; text: string }[] {
  const out: { before: string; text: string }[] = [];
  let depth = 0;
  let start = 0;
  let before = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0) {
      separator.lastIndex = i;
      const m = separator.exec(text);
      if (m && m.index === i && m[0].length > 0) {
        out.push({ before, text: text.slice(start, i) });
        before = m[0];
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  out.push({ before, text: text.slice(start) });
  return out;
}

/** Splits at `separator` where it stands outside brackets. */
function splitTop(text: string, separator: RegExp): string[] {
  return splitTopWith(text, separator).map((p) => p.text);
}

const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/gu, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
};

/** The CASE expressions of a text: the arms' conditions, in order. */
function caseArms(sql: string): { text: string; whens: string[] }[] {
  const out: { text: string; whens: string[] }[] = [];
  for (const m of sql.matchAll(/\bCASE\b/gu)) {
    // Up to the END that closes it, counting nested CASEs and brackets.
    let depth = 0;
    let brackets = 0;
    let end = -1;
    const words = /\bCASE\b|\bEND\b|[()]/gu;
    words.lastIndex = m.index;
    for (let w = words.exec(sql); w; w = words.exec(sql)) {
      if (w[0] === '(') brackets++;
      else if (w[0] === ')') {
        if (--brackets < 0) break;
      } else if (brackets === 0 && w[0] === 'CASE') depth++;
      else if (brackets === 0 && w[0] === 'END' && --depth === 0) {
        end = w.index + 3;
        break;
      }
    }
    if (end < 0) continue;
    const text = sql.slice(m.index, end);
    const body = text.slice(4, -3);
    if (/^\s*WHEN\b/u.test(body)) {
      const whens = splitTopWith(body, /\bWHEN\b|\bTHEN\b|\bELSE\b/gy)
        .filter((p) => p.before === 'WHEN')
        .map((p) => p.text.trim());
      out.push({ text, whens });
    }
  }
  return out;
}

/** What `col = v` / `col IN (a, b)` tests: the column and the values, or undefined. */
function valuesTested(condition: string): { column: string; values: string[] } | undefined {
  const eq = /^([\w".]+) = ('#\d+'|-?\d+(?:\.\d+)?)$/u.exec(condition);
  if (eq) return { column: eq[1] as string, values: [eq[2] as string] };
  const inList = /^([\w".]+) IN \(([^()]*)\)$/u.exec(condition);
  if (inList) return { column: inList[1] as string, values: (inList[2] as string).split(/,\s*/u) };
  return undefined;
}

/** The conditions of each WHERE, HAVING, ON and FILTER clause (ANDed, outside brackets). */
function clauses(sql: string): string[][] {
  const out: string[][] = [];
  const lines = sql.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const where = /^(\s*)(WHERE|HAVING) (.*)$/u.exec(line);
    if (where) {
      let text = where[3] as string;
      // Continuation lines are indented deeper than the clause (its `  AND`s, its subqueries).
      for (let j = i + 1; j < lines.length && (lines[j] as string).startsWith(`${where[1]} `); j++)
        text += `\n${lines[j]}`;
      out.push(conditionsOf(text));
      continue;
    }
    const on = / ON (.*)$/u.exec(line);
    if (on && /\bJOIN\b/u.test(line)) out.push(conditionsOf(on[1] as string));
  }
  for (const m of sql.matchAll(/FILTER \(WHERE /gu)) {
    const open = m.index + 'FILTER '.length;
    const close = closing(sql, open);
    if (close > 0) out.push(conditionsOf(sql.slice(m.index + m[0].length, close)));
  }
  return out;
}

/** A clause's ANDed conditions; the AND of a BETWEEN stays with it. */
function conditionsOf(text: string): string[] {
  const parts = splitTop(text.replace(/\s+/gu, ' '), / AND /gy);
  const out: string[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (last !== undefined && /\bBETWEEN\b(?!.*\bAND\b)/u.test(last)) out[out.length - 1] = `${last} AND ${p}`;
    else out.push(p.trim());
  }
  return out;
}

type Bound = { op: string; value: number };

function implies(a: Bound, b: Bound): boolean {
  const lower = (op: string): boolean => op === '>' || op === '>=';
  if (a.op === '=')
    return b.op === '='
      ? a.value === b.value
      : b.op === '<'
        ? a.value < b.value
        : b.op === '<='
          ? a.value <= b.value
          : b.op === '>'
            ? a.value > b.value
            : a.value >= b.value;
  if (b.op === '=' || lower(a.op) !== lower(b.op)) return false;
  if (lower(a.op)) return a.value > b.value || (a.value === b.value && (a.op === '>' || b.op === '>='));
  return a.value < b.value || (a.value === b.value && (a.op === '<' || b.op === '<='));
}

/** Every finding of every check on one printed SQL text (none for a clean text). */
export function readabilityFindings(sql: string): ReadabilityFinding[] {
  const { text, restore } = maskLiterals(sql);
  const found: ReadabilityFinding[] = [];
  const add = (check: ReadabilityCheck, excerpt: string): void => {
    found.push({ check, excerpt: oneLine(restore(excerpt)) });
  };

  for (const c of caseArms(text)) {
    if (c.whens.some((w) => w === 'TRUE' || w === 'FALSE')) add('constant-case', c.text);
    const seen = new Map<string, Set<string>>();
    if (c.whens.slice(0, -1).includes('TRUE')) add('unreachable-arm', c.text);
    for (const w of c.whens) {
      const tested = valuesTested(w);
      if (!tested) continue;
      const earlier = seen.get(tested.column) ?? new Set<string>();
      if (tested.values.every((v) => earlier.has(v))) add('unreachable-arm', c.text);
      for (const v of tested.values) earlier.add(v);
      seen.set(tested.column, earlier);
    }
  }

  for (const m of text.matchAll(/^(\s*)LEFT JOIN ([\w"]+) AS ([\w"]+) ON (.*)$/gmu)) {
    const alias = m[3] as string;
    const reads = [...text.matchAll(new RegExp(String.raw`(?<![\w".])${alias.replace(/[^\w]/gu, '\\$&')}\.`, 'gu'))];
    const own = [
      ...(m[4] as string).matchAll(new RegExp(String.raw`(?<![\w".])${alias.replace(/[^\w]/gu, '\\$&')}\.`, 'gu')),
    ].length;
    const grouped = [...text.matchAll(/^\s*GROUP BY (.*)$/gmu)].reduce(
      (n, g) => n + [...(g[1] as string).matchAll(new RegExp(String.raw`(?<![\w".])${alias}\.`, 'gu'))].length,
      0,
    );
    if (reads.length <= own + grouped) add('unused-left-join', m[0]);
  }

  for (const m of text.matchAll(/\bcoalesce\(/gu)) {
    const open = m.index + m[0].length - 1;
    const close = closing(text, open);
    if (close > 0 && splitTop(text.slice(open + 1, close), /,/gy).length === 1)
      add('single-coalesce', text.slice(m.index, close + 1));
  }

  // A derived table: `FROM (` … `) AS t`, then the outer WHERE; grouped inside.
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const from = /^(\s*)FROM \($/u.exec(line);
    if (!from) return;
    const indent = from[1] as string;
    const end = lines.findIndex((l, j) => j > i && new RegExp(`^${indent}  \\) AS [\\w"]+$`, 'u').test(l));
    if (end < 0 || !lines[end + 1]?.startsWith(`${indent}WHERE `)) return;
    const inner = lines.slice(i + 1, end);
    if (inner.some((l) => l.startsWith(`${indent}    GROUP BY `) || l.startsWith(`${indent}    HAVING `)))
      add('having-in-derived-table', `${line.trim()} … ${lines[end]?.trim()} ${lines[end + 1]?.trim()}`);
  });

  for (const conditions of clauses(text)) {
    const bounds = new Map<string, Bound[]>();
    for (const c of conditions) {
      const m = /^(.+?) (>=|<=|<>|=|<|>) (-?\d+(?:\.\d+)?)$/u.exec(c);
      if (!m || m[2] === '<>' || /\b(?:AND|OR)\b/u.test(m[1] as string)) continue;
      const list = bounds.get(m[1] as string) ?? [];
      list.push({ op: m[2] as string, value: Number(m[3]) });
      bounds.set(m[1] as string, list);
    }
    for (const [expr, list] of bounds) {
      if (list.some((a, i) => list.some((b, j) => i !== j && implies(a, b))))
        add('implied-bound', `${expr} ${list.map((b) => `${b.op} ${b.value}`).join(', ')}`);
    }
    for (const c of conditions) {
      const m = /^([\w".]+) IS NOT NULL$/u.exec(c);
      if (!m) continue;
      // Only the characters a pattern gives meaning to are escaped: a `u` pattern refuses `\"`.
      const column = (m[1] as string).replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
      const strict = new RegExp(
        String.raw`(?:^|[\s(])${column}\s*(?:=|<>|<=|>=|<|>|IN \(|NOT IN \(|LIKE|ILIKE|BETWEEN)|(?:=|<>|<=|>=|<|>)\s*${column}(?![\w"])`,
        'u',
      );
      if (conditions.some((other) => other !== c && strict.test(other) && !/\bOR\b/u.test(other)))
        add('implied-not-null', c);
    }
  }

  for (const m of text.matchAll(/\bNOT \(/gu)) {
    const open = m.index + m[0].length - 1;
    const close = closing(text, open);
    if (close < 0) continue;
    const inner = text.slice(open + 1, close);
    if (/^\s*SELECT\b/u.test(inner) || splitTop(inner, / (?:AND|OR) /gy).length > 1) continue;
    const top = splitTop(
      inner,
      / (?:=|<>|<=|>=|<|>) | IS (?:NOT )?NULL$| (?:NOT )?IN \(| (?:NOT )?I?LIKE | (?:NOT )?BETWEEN /gy,
    );
    if (top.length > 1 && !/\bANY \(/u.test(inner)) add('negated-comparison', text.slice(m.index, close + 1));
  }

  for (const m of text.matchAll(/\bAS (?:count|sum|avg|min|max)(?:_\d+)?(?![\w"(])/gu))
    add('generic-column-name', text.slice(Math.max(0, m.index - 40), m.index + m[0].length));

  for (const m of text.matchAll(/(?<![\w".(:])(?:[\w"]+\.)?([\w"]+) AS \1(?![\w"(])/gu)) {
    // A CAST's type, or a table named as itself, is not an output column.
    if (/(?:CAST\(|\b(?:FROM|JOIN)\s+)$/u.test(text.slice(0, m.index))) continue;
    add('self-alias', m[0]);
  }

  for (const m of text.matchAll(/(?:^|\n)\s*(WHERE|HAVING) \(|\bON \(/gu)) {
    const open = m.index + m[0].length - 1;
    const close = closing(text, open);
    if (close < 0 || /^\(\s*SELECT\b/u.test(text.slice(open))) continue;
    const rest = text.slice(close + 1);
    // The bracket closes the whole clause: the line ends, and no AND or operator follows.
    if (/^\s*(?:\n|$)/u.test(rest) && !/^\s*\n\s*AND\b/u.test(rest))
      add('bracketed-clause', text.slice(m.index, close + 1));
  }
  return found;
}

/** The first check a text fails, or undefined when it reads clean. */
export function firstUnreadable(sql: string): ReadabilityFinding | undefined {
  return readabilityFindings(sql)[0];
}
