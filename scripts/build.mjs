// npm run build: the library and CLI as JavaScript with declarations in dist/ (tsconfig.build.json),
// plus the plain JavaScript files the sources load beside them (the PGlite worker, the config child).
// dist/ mirrors generator/, so paths two folders up (templates/, grammars/) still reach the package root.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { transform } from 'esbuild';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
for (const file of walk(join(root, 'generator')).filter((f) => /\.(m?js)$/u.test(f))) {
  const target = join(dist, relative(join(root, 'generator'), file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
// The project's datasets.config.ts as JavaScript beside the built index: Node loads no
// TypeScript from node_modules, where an installed package lives.
const config = readFileSync(join(root, 'datasets.config.ts'), 'utf8')
  .replaceAll("'./generator/", "'./")
  .replace(/(from '\.\/[^']+)\.ts'/gu, "$1.js'");
writeFileSync(join(dist, 'datasets.config.js'), (await transform(config, { loader: 'ts', format: 'esm' })).code);
