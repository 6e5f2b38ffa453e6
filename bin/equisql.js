#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx, so a fresh clone needs only
// `npm install` before `npx equisql …` works: there is no build step to forget.
import { register } from 'tsx/esm/api';

// A reader that stops early (`equisql variants | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

register();
const { main } = await import('../generator/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
