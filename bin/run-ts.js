#!/usr/bin/env node
// Runs one TypeScript entry point (a benchmark or a script) through tsx.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: run-ts.js FILE.ts [args…]\n');
  process.exit(2);
}
process.argv = [process.argv[0], entry, ...rest];
await import(pathToFileURL(resolve(entry)).href);
