/**
 * `npm run docs`: writes docs/cli.md from the commands' flag tables. A test compares the
 * committed page with what this writes, so run it after changing a command's flags.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliReference } from '../generator/cli/cli-reference.ts';
import { loadCommands } from '../generator/cli/main.ts';

export const CLI_DOC = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'cli.md');

writeFileSync(CLI_DOC, cliReference(await loadCommands()));
process.stdout.write(`wrote ${CLI_DOC}\n`);
