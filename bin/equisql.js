#!/usr/bin/env node
// The installed package runs the JavaScript `npm run build` put in dist/. A checkout (it has
// .git) runs the TypeScript sources through tsx, so an edit needs no rebuild and a stale
// dist/ is never run by mistake; EQUISQL_BUILT=1 runs dist/ there too (bench:refusals).
import { existsSync } from 'node:fs';

// A reader that stops early (`equisql variants | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const checkout = existsSync(new URL('../.git', import.meta.url)) && process.env.EQUISQL_BUILT !== '1';
let main;
if (checkout) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../generator/cli/main.ts'));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
