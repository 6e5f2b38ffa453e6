import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, loadCommands, main } from '../../generator/cli/main.ts';
import { cliReference } from '../../generator/cli/cli-reference.ts';
import type { CliIo, Command } from '../../generator/cli/command.ts';
import { flagName } from '../../generator/cli/flags.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';

/** What `equisql <args>` prints on stdout, run in-process. */
async function stdout(args: string[]): Promise<{ status: number; text: string }> {
  let text = '';
  const io: CliIo = { out: (t) => void (text += `${t}\n`), err: () => {}, readStdin: async () => '', env: {} };
  const status = await main(args, io);
  return { status, text };
}

/** The flags a help text lists under its "flags:" headings, as written (`--dir`, `-n`). */
function listedFlags(help: string): string[] {
  const out: string[] = [];
  let inList = false;
  for (const line of help.split('\n')) {
    if (line === 'flags:') inList = true;
    else if (!line.startsWith('  ')) inList = false;
    else if (inList) {
      const m = /^ {2}(-{1,2}[A-Za-z][\w-]*)/u.exec(line);
      if (m) out.push(m[1] as string);
    }
  }
  return out.sort();
}

/** The flags the parser knows, as its refusal of an unknown flag names them. */
async function parserFlags(command: Command, sub?: string): Promise<string[]> {
  const io: CliIo = { out: () => {}, err: () => {}, readStdin: async () => '', env: {} };
  const message = await command.run([...(sub ? [sub] : []), '--no-such-flag'], io).then(
    () => '',
    (error: Error) => error.message,
  );
  const m = /\((?:flags: (.*)|it takes no flags)\)$/u.exec(message);
  expect(m, `${command.name}${sub ? ` ${sub}` : ''}: ${message}`).not.toBeNull();
  return (m?.[1] ?? '')
    .split(', ')
    .filter((f) => f !== '')
    .sort();
}

describe('--help and the CLI reference', () => {
  it("every command's --help lists exactly the flags its parser takes", async () => {
    const commands = await loadCommands();
    expect(commands.map((c) => c.name)).toEqual(Object.keys(COMMANDS));
    for (const command of commands) {
      const help = await stdout([command.name, '--help']);
      expect(help.status).toBe(0);
      const parts = command.subcommands ?? [command];
      const declared = parts.flatMap((p) => Object.keys(p.flags).map(flagName)).sort();
      expect(listedFlags(help.text), command.name).toEqual(declared);
      for (const part of parts) {
        const sub = part === command ? undefined : part.name.split(' ')[1];
        expect(await parserFlags(command, sub), part.name).toEqual(Object.keys(part.flags).map(flagName).sort());
        expect(help.text).toContain(`usage: equisql ${part.name}`);
      }
    }
  });

  it('a short alias is listed beside its flag and accepted by the parser', async () => {
    const help = await stdout(['show', '--help']);
    expect(help.text).toMatch(/^ {2}-n N\s/mu);
  });

  it('docs/cli.md is what npm run docs writes from the tables (run it after changing a flag)', async () => {
    const committed = readFileSync(join(REPO_ROOT, 'docs', 'cli.md'), 'utf8');
    expect(committed).toBe(cliReference(await loadCommands()));
    for (const name of Object.keys(COMMANDS)) expect(committed).toContain(`## \`equisql ${name}\``);
  });

  it('the README is a front page of at most 10 KB whose links reach pages that exist', () => {
    const readme = join(REPO_ROOT, 'README.md');
    expect(statSync(readme).size).toBeLessThanOrEqual(10 * 1024);
    const text = readFileSync(readme, 'utf8');
    const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/gu)]
      .map((m) => m[1] as string)
      .filter((l) => !/^https?:/u.test(l));
    expect(links).toEqual(expect.arrayContaining(['docs/cli.md', 'docs/records.md', 'docs/testing.md']));
    for (const link of links) expect(existsSync(join(dirname(readme), link)), link).toBe(true);
  });
});
