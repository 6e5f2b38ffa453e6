// Loads a user's datasets.config.ts in a child process of its own (see load-config.ts) and
// sends its default export back over IPC. Plain JavaScript, so it starts without a build step.
import { register as registerTsx } from 'tsx/esm/api';
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

registerTsx();
// The public API beside this file: the sources in a checkout, the built index.js in dist/.
const entry = new URL(
  existsSync(new URL('../index.ts', import.meta.url)) ? '../index.ts' : '../index.js',
  import.meta.url,
);
register(new URL('./config-import-hooks.mjs', import.meta.url), { data: { entry: entry.href } });

const path = process.argv[2];
const reply = (message) => new Promise((done) => process.send(message, () => done()));
let outcome;
try {
  const module = await import(pathToFileURL(path).href);
  outcome = { ok: true, value: module.default };
} catch (error) {
  outcome = { ok: false, message: String(error instanceof Error ? error.message : error).split('\n')[0] };
}
try {
  await reply(outcome);
} catch (error) {
  // A default export that cannot be copied to the parent (a function, a symbol).
  await reply({
    ok: false,
    message: `the default export cannot be read as data: ${String(error instanceof Error ? error.message : error).split('\n')[0]}`,
  });
}
process.disconnect();
