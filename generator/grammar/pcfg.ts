/**
 * The probabilistic context-free grammar over SQL structure, and its text format.
 *
 * A grammar file has one rule per line, probability first:
 *
 *     %start query
 *     0.85  query -> select_stmt
 *     0.15  query -> simple_select set_op query
 *     1     set_op -> "UNION"
 *
 * Bare words are nonterminals, double-quoted words are SQL terminals, and `<name>` or
 * `<name:type>` are typed placeholders (`<table>`, `<column:numeric>`, `<value:text>`, …)
 * that the content filler later replaces with schema elements and values. `#` starts a
 * comment; a comment holding only a whole number after a rule is its observed count.
 * `grammars/README.md` documents the format in full.
 */
import { GrammarError } from '../common/errors.ts';

/** The placeholders a skeleton may contain, with the types each accepts. */
export const PLACEHOLDER_TYPES: Readonly<Record<string, readonly (string | null)[]>> = {
  table: [null],
  column: [null, 'numeric', 'text'],
  value: [null, 'number', 'text', 'pattern', 'interval'],
  agg: [null],
  alias: [null],
  /** A function by what it computes (`expression-rules.ts` lists the names of each). */
  fn: [null, 'text', 'numeric', 'date', 'window', 'agg'],
  /** The target type of a CAST. */
  type: [null, 'numeric', 'text', 'date', 'boolean'],
};

export type GrammarSymbol =
  | { readonly kind: 'nonterminal'; readonly name: string }
  | { readonly kind: 'terminal'; readonly text: string }
  | { readonly kind: 'placeholder'; readonly name: string; readonly type: string | null };

export interface Rule {
  readonly lhs: string;
  readonly rhs: readonly GrammarSymbol[];
  readonly prob: number;
  /** `lhs -> rhs` as written in a grammar file; the rule's identity. */
  readonly key: string;
  /** How often the rule was observed, for estimated grammars. */
  readonly count?: number;
  /** The line the rule was read from, for loaded grammars. */
  readonly line?: number;
}

export interface Grammar {
  readonly start: string;
  readonly rules: readonly Rule[];
  /** Rules of each nonterminal, in file order. */
  readonly byLhs: ReadonlyMap<string, readonly Rule[]>;
  /** Comment lines at the top of the file (source, licence, …), without the `#`. */
  readonly header: readonly string[];
}

/** Probabilities of one nonterminal may miss 1 by this much (files keep 6 significant digits). */
export const SUM_TOLERANCE = 1e-4;

const NAME = /^[a-z_][a-z0-9_]*$/u;
const PROBABILITY = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/u;

/** The text of one symbol as written in a grammar file and in skeletons. */
export function symbolText(symbol: GrammarSymbol): string {
  switch (symbol.kind) {
    case 'nonterminal':
      return symbol.name;
    case 'terminal':
      return `"${symbol.text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
    case 'placeholder':
      return placeholderText(symbol.name, symbol.type);
  }
}

/** `<name>` or `<name:type>`. */
export function placeholderText(name: string, type: string | null): string {
  return type === null ? `<${name}>` : `<${name}:${type}>`;
}

/**
 * A rule's identity, as a grammar file writes it.
 *
 * @example
 * ruleKey('limit_clause', [{ kind: 'terminal', text: 'LIMIT' }, { kind: 'terminal', text: '1' }]);
 * // 'limit_clause -> "LIMIT" "1"'
 */
export function ruleKey(lhs: string, rhs: readonly GrammarSymbol[]): string {
  return `${lhs} -> ${rhs.map(symbolText).join(' ')}`;
}

/** Builds a grammar from rules and checks it (sums, undefined and unreachable nonterminals). */
export function makeGrammar(
  rules: readonly Rule[],
  options: { start?: string; header?: readonly string[]; file?: string } = {},
): Grammar {
  const file = options.file ?? 'grammar';
  const byLhs = new Map<string, Rule[]>();
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.key)) throw new GrammarError(`${where(file, rule)}: duplicate rule ${rule.key}`);
    seen.add(rule.key);
    if (!(rule.prob > 0 && rule.prob <= 1 + SUM_TOLERANCE)) {
      throw new GrammarError(`${where(file, rule)}: probability ${rule.prob} of ${rule.key} is not in (0, 1]`);
    }
    const list = byLhs.get(rule.lhs) ?? [];
    list.push(rule);
    byLhs.set(rule.lhs, list);
  }
  const first = rules[0];
  if (!first) throw new GrammarError(`${file}: the grammar has no rules`);
  const start = options.start ?? first.lhs;
  if (!byLhs.has(start)) throw new GrammarError(`${file}: start symbol "${start}" has no rules`);
  for (const [lhs, list] of byLhs) {
    const sum = list.reduce((total, rule) => total + rule.prob, 0);
    if (Math.abs(sum - 1) > SUM_TOLERANCE) {
      const lines = list.map((r) => r.line).filter((l) => l !== undefined);
      const at = lines.length > 0 ? `${file}:${lines[0]}` : file;
      throw new GrammarError(
        `${at}: probabilities of "${lhs}" sum to ${sum.toFixed(6)}, not 1 (lines ${lines.join(', ')})`,
      );
    }
    for (const rule of list) {
      for (const symbol of rule.rhs) {
        if (symbol.kind === 'nonterminal' && !byLhs.has(symbol.name)) {
          throw new GrammarError(`${where(file, rule)}: nonterminal "${symbol.name}" has no rules`);
        }
      }
    }
  }
  const reachable = reachableFrom(start, byLhs);
  for (const [lhs, list] of byLhs) {
    if (!reachable.has(lhs))
      throw new GrammarError(`${where(file, list[0] as Rule)}: nonterminal "${lhs}" is unreachable from "${start}"`);
  }
  const finishing = productive(byLhs);
  for (const [lhs, list] of byLhs) {
    if (!finishing.has(lhs)) {
      throw new GrammarError(
        `${where(file, list[0] as Rule)}: nonterminal "${lhs}" can never finish a derivation (every rule leads back to a nonterminal that cannot)`,
      );
    }
  }
  return { start, rules, byLhs, header: options.header ?? [] };
}

function where(file: string, rule: Rule): string {
  return rule.line === undefined ? file : `${file}:${rule.line}`;
}

/** Nonterminals with at least one derivation that ends in terminals and placeholders only. */
function productive(byLhs: ReadonlyMap<string, readonly Rule[]>): Set<string> {
  const done = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const [lhs, list] of byLhs) {
      if (done.has(lhs)) continue;
      if (list.some((rule) => rule.rhs.every((symbol) => symbol.kind !== 'nonterminal' || done.has(symbol.name)))) {
        done.add(lhs);
        changed = true;
      }
    }
  }
  return done;
}

function reachableFrom(start: string, byLhs: ReadonlyMap<string, readonly Rule[]>): Set<string> {
  const seen = new Set([start]);
  const stack = [start];
  while (stack.length > 0) {
    for (const rule of byLhs.get(stack.pop() as string) ?? []) {
      for (const symbol of rule.rhs) {
        if (symbol.kind === 'nonterminal' && !seen.has(symbol.name)) {
          seen.add(symbol.name);
          stack.push(symbol.name);
        }
      }
    }
  }
  return seen;
}

/** Nonterminals in breadth-first order from the start symbol: the order files list them in. */
export function nonterminalOrder(start: string, byLhs: ReadonlyMap<string, readonly Rule[]>): string[] {
  const order = [start];
  const seen = new Set(order);
  for (let i = 0; i < order.length; i++) {
    for (const rule of byLhs.get(order[i] as string) ?? []) {
      for (const symbol of rule.rhs) {
        if (symbol.kind === 'nonterminal' && !seen.has(symbol.name)) {
          seen.add(symbol.name);
          order.push(symbol.name);
        }
      }
    }
  }
  return order;
}

/** Splits a rule's right-hand side into symbols; throws with the line on a malformed token. */
function parseRhs(text: string, file: string, line: number): GrammarSymbol[] {
  const symbols: GrammarSymbol[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/u.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      if (i >= text.length) throw new GrammarError(`${file}:${line}: unterminated terminal "${value}`);
      i++;
      if (value === '') throw new GrammarError(`${file}:${line}: empty terminal ""`);
      symbols.push({ kind: 'terminal', text: value });
      continue;
    }
    let end = i;
    while (end < text.length && !/\s/u.test(text[end] as string)) end++;
    const word = text.slice(i, end);
    i = end;
    const placeholder = /^<([a-z]+)(?::([a-z]+))?>$/u.exec(word);
    if (placeholder) {
      const name = placeholder[1] as string;
      const type = placeholder[2] ?? null;
      const allowed = PLACEHOLDER_TYPES[name];
      if (!allowed)
        throw new GrammarError(
          `${file}:${line}: unknown placeholder ${word} (known: ${Object.keys(PLACEHOLDER_TYPES).join(', ')})`,
        );
      if (!allowed.includes(type)) {
        throw new GrammarError(
          `${file}:${line}: placeholder <${name}> does not take type "${type ?? ''}" (allowed: ${allowed.map((t) => t ?? '(none)').join(', ')})`,
        );
      }
      symbols.push({ kind: 'placeholder', name, type });
      continue;
    }
    if (!NAME.test(word))
      throw new GrammarError(`${file}:${line}: "${word}" is neither a nonterminal, a "terminal" nor a <placeholder>`);
    symbols.push({ kind: 'nonterminal', name: word });
  }
  return symbols;
}

/** Removes a `#` comment that is not inside a quoted terminal. */
function stripComment(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '\\' && quoted) i++;
    else if (ch === '"') quoted = !quoted;
    else if (ch === '#' && !quoted) return line.slice(0, i);
  }
  return line;
}

/**
 * Reads a grammar file's text. Errors name `file` and the line.
 *
 * @example
 * parseGrammar('0.6 q -> "SELECT" <column>\n0.4 q -> "SELECT" "*"\n', 'tiny.pcfg').byLhs.get('q')?.length; // 2
 */
export function parseGrammar(text: string, file = 'grammar'): Grammar {
  const rules: Rule[] = [];
  const header: string[] = [];
  let start: string | undefined;
  let inHeader = true;
  text.split(/\r?\n/u).forEach((raw, index) => {
    const line = index + 1;
    if (inHeader && raw.startsWith('#')) {
      header.push(raw.replace(/^#\s?/u, ''));
      return;
    }
    const content = stripComment(raw).trim();
    // A comment that is only a whole number is the rule's observed count (estimated grammars).
    const countText = /^#\s*(\d+)\s*$/u.exec(raw.slice(stripComment(raw).length))?.[1];
    if (content === '') return;
    inHeader = false;
    if (content.startsWith('%')) {
      const directive = /^%start\s+([a-z_][a-z0-9_]*)$/u.exec(content);
      if (!directive) throw new GrammarError(`${file}:${line}: unknown directive "${content}" (only %start NAME)`);
      if (start !== undefined) throw new GrammarError(`${file}:${line}: %start given twice`);
      start = directive[1];
      return;
    }
    const match = /^(\S+)\s+([a-z_][a-z0-9_]*)\s*->(.*)$/u.exec(content);
    if (!match) throw new GrammarError(`${file}:${line}: expected "PROBABILITY LHS -> SYMBOLS…", got "${content}"`);
    // Plain decimals only: Number() would also take `0x1`, `0b1` or `Infinity`.
    const prob = PROBABILITY.test(match[1] as string) ? Number(match[1]) : Number.NaN;
    if (!Number.isFinite(prob)) throw new GrammarError(`${file}:${line}: "${match[1]}" is not a probability`);
    const lhs = match[2] as string;
    const rhs = parseRhs(match[3] as string, file, line);
    if (rhs.length === 0) throw new GrammarError(`${file}:${line}: rule for "${lhs}" has an empty right-hand side`);
    const rule: Rule = { lhs, rhs, prob, key: ruleKey(lhs, rhs), line };
    rules.push(countText === undefined ? rule : { ...rule, count: Number(countText) });
  });
  return makeGrammar(rules, { start, header, file });
}

/** Writes a grammar in the file format: header, `%start`, rules grouped by nonterminal. */
export function formatGrammar(grammar: Grammar): string {
  const lines = grammar.header.map((h) => (h === '' ? '#' : `# ${h}`));
  if (lines.length > 0) lines.push('');
  lines.push(`%start ${grammar.start}`);
  for (const lhs of nonterminalOrder(grammar.start, grammar.byLhs)) {
    lines.push('');
    const rules = [...(grammar.byLhs.get(lhs) ?? [])].sort((a, b) => b.prob - a.prob || (a.key < b.key ? -1 : 1));
    const width = Math.max(...rules.map((r) => r.key.length));
    for (const rule of rules) {
      const prob = formatProb(rule.prob);
      const count = rule.count === undefined ? '' : `${' '.repeat(width - rule.key.length)}  # ${rule.count}`;
      lines.push(`${prob.padEnd(10)} ${rule.key}${count}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function formatProb(p: number): string {
  return p === 1 ? '1' : Number(p.toPrecision(6)).toString();
}
