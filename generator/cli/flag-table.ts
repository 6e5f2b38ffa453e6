/**
 * Each command declares its flags once, in a table: the parser reads it, `--help` prints it,
 * and `npm run docs` writes docs/cli.md from it, so the three cannot drift apart.
 */
import { flagName, parseCommandLine } from './flags.ts';

/** One flag: how it is parsed and what `--help` says of it. */
export interface FlagSpec {
  /** `string` takes a value; `boolean` is a switch. */
  readonly type: 'string' | 'boolean';
  /** The value's placeholder in the synopsis and the flag list (`DIR`, `N`, `URL`). */
  readonly value?: string;
  /** A one-letter alias (`-n`). */
  readonly short?: string;
  /** May be given more than once; the values are collected in order. */
  readonly multiple?: boolean;
  /** The command refuses to run without it (shown without brackets in the synopsis). */
  readonly required?: boolean;
  /** The value the parser fills in when the flag is absent. */
  readonly default?: string | boolean;
  /** What the flag does and its default, in a sentence or two. */
  readonly help: string;
}

/** A command's flags by name (without the dashes), in the order `--help` lists them. */
export type FlagTable = Readonly<Record<string, FlagSpec>>;

/** The parsed values of a table's flags: strings, string lists for `multiple`, booleans. */
export type FlagValues<T extends FlagTable> = {
  -readonly [K in keyof T]?: T[K]['type'] extends 'boolean'
    ? boolean
    : T[K]['multiple'] extends true
      ? string[]
      : string;
};

/** What `--help` and the CLI reference show of a command or a subcommand. */
export interface CommandHelp {
  /** `export`, or `grammar sample` for a subcommand. */
  readonly name: string;
  readonly summary: string;
  readonly flags: FlagTable;
  /** What follows the flags on the command line: `[QUERY]`, `DIR_1 … DIR_N`, `< queries.sql`. */
  readonly operands?: string;
  /** Paragraphs after the flag list: what the command reads and writes, how it fails. */
  readonly details?: string;
}

/** The flags every command takes, handled before the command runs. */
export const GLOBAL_FLAGS: FlagTable = {
  quiet: { type: 'boolean', help: 'no progress on stderr (errors are still printed)' },
  help: { type: 'boolean', short: 'h', help: "print the command's usage and flags, and exit" },
};

/**
 * Parses `args` against a command's table (strictly: see `parseCommandLine`).
 *
 * @example
 * parseTable('check', ['--dir', 'out'], { dir: { type: 'string', value: 'DIR', help: '…' } }).values.dir; // 'out'
 */
export function parseTable<T extends FlagTable>(
  command: string,
  args: readonly string[],
  table: T,
  settings: { positionals?: boolean } = {},
): { values: FlagValues<T>; positionals: string[] } {
  const options = Object.fromEntries(
    Object.entries(table).map(([name, f]) => [
      name,
      {
        type: f.type,
        ...(f.short ? { short: f.short } : {}),
        ...(f.multiple ? { multiple: true } : {}),
        ...(f.default !== undefined ? { default: f.default } : {}),
      },
    ]),
  ) as Parameters<typeof parseCommandLine>[2];
  const parsed = parseCommandLine(command, args, options, settings);
  return { values: parsed.values as FlagValues<T>, positionals: parsed.positionals };
}

/** `--dir DIR`, `-n N`, `--json`: a flag as the synopsis and the list write it. */
export function flagUsage(name: string, f: FlagSpec): string {
  const value = f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : '';
  return `${flagName(name)}${value}${f.multiple ? ' …' : ''}`;
}

/** The synopsis' words: required flags bare, the others in brackets, then the operands. */
function synopsisParts(help: CommandHelp): string[] {
  const parts = Object.entries(help.flags).map(([name, f]) =>
    f.required ? flagUsage(name, f) : `[${flagUsage(name, f)}]`,
  );
  return [...parts, ...(help.operands ? [help.operands] : [])];
}

/** The one-line synopsis: `equisql export --dir DIR [--split KIND] …`. */
export function synopsis(help: CommandHelp): string {
  return ['equisql', help.name, ...synopsisParts(help)].join(' ');
}

/** `usage: equisql …`, wrapped at 100 columns under the command's name (a flag is never cut). */
function usageLines(help: CommandHelp): string[] {
  const head = `usage: equisql ${help.name}`;
  const lines: string[] = [];
  let line = head;
  for (const part of synopsisParts(help)) {
    if (line.length + 1 + part.length > 100 && line.trim().length > 0 && line !== head) {
      lines.push(line);
      line = `${' '.repeat(head.length)} ${part}`;
    } else line = `${line} ${part}`;
  }
  return [...lines, line];
}

/** Words of `text` in lines of at most `width` characters, each after `indent`. */
function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/u).filter((w) => w !== '')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => `${indent}${l}`);
}

/** The flag list of `--help`: each flag, its value, what it does (wrapped under a hanging indent). */
export function flagList(flags: FlagTable): string[] {
  const entries = Object.entries(flags).map(
    ([name, f]) => [f.short && name.length > 1 ? `${flagUsage(name, f)}, -${f.short}` : flagUsage(name, f), f] as const,
  );
  const column = Math.min(28, Math.max(...entries.map(([u]) => u.length), 0) + 4);
  const out: string[] = [];
  for (const [usage, f] of entries) {
    const text = `${f.help}${f.required ? ' (required)' : ''}`;
    const body = wrap(text, 100, ' '.repeat(column));
    const head = `  ${usage}`;
    if (head.length < column)
      out.push(`${head}${' '.repeat(column - head.length)}${(body[0] ?? '').trimStart()}`, ...body.slice(1));
    else out.push(head, ...body);
  }
  return out;
}

/**
 * The text `equisql <command> --help` prints: synopsis, summary, the flag list, the details.
 * A command with subcommands prints each of them in turn.
 */
export function helpText(help: CommandHelp, subcommands: readonly CommandHelp[] = []): string {
  const one = (h: CommandHelp): string[] => [
    ...usageLines(h),
    '',
    `${h.summary[0]?.toUpperCase() ?? ''}${h.summary.slice(1)}.`,
    ...(Object.keys(h.flags).length > 0 ? ['', 'flags:', ...flagList(h.flags)] : []),
    ...(h.details ? ['', h.details] : []),
  ];
  const parts = subcommands.length > 0 ? subcommands.map((s) => one(s).join('\n')) : [one(help).join('\n')];
  const global = Object.entries(GLOBAL_FLAGS)
    .map(([name, f]) => flagName(name))
    .join(' and ');
  return `${parts.join('\n\n')}\n\nEvery command also takes ${global}.`;
}
