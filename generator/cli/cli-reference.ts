/**
 * docs/cli.md, written from the commands' own flag tables (`npm run docs`): the reference
 * says what `--help` says, and a test fails when the committed page is stale.
 */
import { EXIT, type Command } from './command.ts';
import { flagUsage, GLOBAL_FLAGS, synopsis, type CommandHelp, type FlagTable } from './flag-table.ts';

/** A table cell: pipes escaped, so `all|a,b` stays one cell. */
function cell(text: string): string {
  return prose(text).replaceAll('|', '\\|');
}

/** Text outside code: a `<variant>` placeholder is shown, not taken for an HTML tag. */
function prose(text: string): string {
  return text.replaceAll('<', '&lt;');
}

function flagTable(flags: FlagTable): string[] {
  if (Object.keys(flags).length === 0) return ['It takes no flags.'];
  return [
    '| flag | what it does |',
    '|---|---|',
    ...Object.entries(flags).map(
      ([name, f]) =>
        `| \`${flagUsage(name, f).replaceAll('|', '\\|')}\`${f.short && name.length > 1 ? `, \`-${f.short}\`` : ''} | ${cell(f.help)}${f.required ? ' (required)' : ''} |`,
    ),
  ];
}

/** Details as Markdown: paragraphs as text, indented lines (file lists, formats) as a code block. */
function detailsMarkdown(details: string): string[] {
  const out: string[] = [];
  let block: string[] = [];
  let text: string[] = [];
  const flush = (): void => {
    if (text.length > 0) out.push(prose(text.join(' ')), '');
    if (block.length > 0) out.push('```text', ...block, '```', '');
    text = [];
    block = [];
  };
  for (const line of details.split('\n')) {
    if (line.trim() === '') flush();
    else if (/^\s{2}/u.test(line)) {
      if (text.length > 0) {
        out.push(prose(text.join(' ')), '');
        text = [];
      }
      block.push(line.replace(/^\s{2}/u, ''));
    } else {
      if (block.length > 0) {
        out.push('```text', ...block, '```', '');
        block = [];
      }
      text.push(line.trim());
    }
  }
  flush();
  return out;
}

function section(help: CommandHelp, level: string): string[] {
  return [
    `${level} \`equisql ${help.name}\``,
    '',
    `${help.summary[0]?.toUpperCase() ?? ''}${help.summary.slice(1)}.`,
    '',
    '```text',
    synopsis(help),
    '```',
    '',
    ...flagTable(help.flags),
    '',
    ...(help.details ? detailsMarkdown(help.details) : []),
  ];
}

/**
 * The CLI reference page for `commands` (in the order given).
 *
 * @example
 * cliReference([exportCommand]).startsWith('# Command-line reference'); // true
 */
export function cliReference(commands: readonly Command[]): string {
  const lines = [
    '# Command-line reference',
    '',
    "<!-- Written by `npm run docs` from each command's flag table; edit the tables in generator/cli/, not this page. -->",
    '',
    '`equisql <command> --help` prints the same text. Every command also takes:',
    '',
    ...flagTable(GLOBAL_FLAGS),
    '',
    `Exit status: ${EXIT.ok} done, every check passed; ${EXIT.checkFailed} ran to the end and a check failed (variants disagree, a read-back differs, an export leaks); ${EXIT.badInput} refused its input or environment, named in one line; ${EXIT.internal} an internal error (a bug in equisql).`,
    '',
    '| command | what it does |',
    '|---|---|',
    ...commands.map((c) => `| [\`${c.name}\`](#equisql-${c.name}) | ${cell(c.summary)} |`),
    '',
  ];
  for (const c of commands) {
    lines.push(...section(c, '##'));
    for (const sub of c.subcommands ?? []) lines.push(...section(sub, '###'));
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/gu, '\n\n')
    .trimEnd()}\n`;
}
