import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

// Four tiers over one tree of tests (docs/testing.md, "Tiers"):
//   npm test                 every test file but the long ones; sizes small; blocks that need a server skipped
//   npm run test:long        EQUISQL_TIER=long: the files that open with the pragma `// @tier long`
//                            (whole CLI runs, kills, property draws: over about 15 s each at small sizes)
//   npm run test:server      EQUISQL_TIER=server: the files that call describeServer, those blocks alone
//   npm run test:acceptance  EQUISQL_ACCEPTANCE=1: the files that declare a size with sized(),
//                            directly or through a module beside them, at acceptance sizes
// The tier a file belongs to follows from what it calls, so a new test needs no list edited.
const ROOT = dirname(new URL(import.meta.url).pathname);
const TIER =
  process.env['EQUISQL_ACCEPTANCE'] === '1'
    ? 'acceptance'
    : process.env['EQUISQL_TIER'] === 'server'
      ? 'server'
      : process.env['EQUISQL_TIER'] === 'long'
        ? 'long'
        : 'default';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** A test file's text with that of the modules it imports from beside it (not test/helpers). */
function textWithLocalImports(file: string): string {
  const text = readFileSync(file, 'utf8');
  const local = [...text.matchAll(/from '(\.\/[^']+\.ts)'/gu)].map((m) =>
    readFileSync(resolve(dirname(file), m[1] as string), 'utf8'),
  );
  return [text, ...local].join('\n');
}

const picked = (pattern: RegExp) =>
  testFiles(join(ROOT, 'test'))
    .filter((file) => pattern.test(textWithLocalImports(file)))
    .map((file) => relative(ROOT, file))
    .sort();

/** The files that open with `// @tier long`, as vitest's own pragmas open a file. */
const LONG = /^\/\/ @tier long\b/u;
const longFiles = testFiles(join(ROOT, 'test'))
  .filter((file) => LONG.test(readFileSync(file, 'utf8')))
  .map((file) => relative(ROOT, file))
  .sort();

const include =
  TIER === 'server'
    ? picked(/\bdescribeServer\(/u)
    : TIER === 'acceptance'
      ? picked(/\bsized\(|\bACCEPTANCE\b/u)
      : TIER === 'long'
        ? longFiles
        : ['test/**/*.test.ts'];

export default defineConfig({
  test: {
    include,
    ...(TIER === 'default' ? { exclude: [...configDefaults.exclude, ...longFiles] } : {}),
    // The server tier runs only the blocks describeServer tags; the rest of those files ran in `npm test`.
    ...(TIER === 'server' ? { testNamePattern: /\[server\]/u } : {}),
    globalSetup: ['test/helpers/temp-root.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: PGlite instances are memory-hungry and CPU-bound, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
  },
});
