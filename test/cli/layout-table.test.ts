import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.ts';

// docs/testing.md's "The code's layout" names every folder of the checkout and every stage
// folder of generator/; a folder added or moved without a line there fails here.
const doc = readFileSync(join(REPO_ROOT, 'docs/testing.md'), 'utf8');
const block = (doc.split("## The code's layout")[1] ?? '').split('```')[1] ?? '';
/** The names a line of the block gives at an indent (`sql/ grammar/ structure/` gives three). */
const named = (indent: number): string[] =>
  block
    .split('\n')
    .filter((line) => line.length - line.trimStart().length === indent)
    .flatMap((line) => (line.trim().match(/^((?:[\w.-]+\/ ?)+)/u)?.[1] ?? '').split(' ').filter((n) => n !== ''))
    .map((n) => n.replace(/\/$/u, ''));
const folders = (dir: string, skip: readonly string[]): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !skip.includes(e.name))
    .map((e) => e.name)
    .sort();

describe("docs/testing.md's layout table", () => {
  it('names every top-level folder of the checkout, and no folder that is not there', () => {
    // Installed, built or written by runs: not part of the checkout's layout.
    const generated = ['node_modules', 'test-artifacts', 'dist'];
    expect(
      named(0)
        .filter((n) => !generated.includes(n))
        .sort(),
    ).toEqual(folders(REPO_ROOT, generated));
  });

  it('names every folder of generator/, and no folder that is not there', () => {
    expect(named(2).sort()).toEqual(folders(join(REPO_ROOT, 'generator'), []));
  });
});
