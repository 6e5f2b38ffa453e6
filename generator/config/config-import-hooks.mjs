// Module hooks for loading a user's datasets.config.ts from any directory (registered by
// load-config.ts with node:module's register). Plain JavaScript: hooks run on the loader
// thread, before any TypeScript support can be relied on there.

let entry;

/** `data.entry`: the file URL of this package's public entry (generator/index.ts). */
export function initialize(data) {
  entry = data.entry;
}

/**
 * `equisql` is the package the running CLI belongs to, wherever the config lives: a config
 * outside this repository has no node_modules that could hold it, and two copies of the
 * package would not share types or errors anyway.
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'equisql') return { url: entry, format: 'module', shortCircuit: true };
  const resolved = await nextResolve(specifier, context);
  // A .ts file in a folder without `"type": "module"` would be read as CommonJS and then
  // fail on its own import statements ("Cannot require() ES Module … in a cycle"). Config
  // files are written as ES modules, so read user TypeScript as one.
  if (
    resolved.format === 'commonjs' &&
    /^file:.*\.ts$/.test(resolved.url) &&
    !resolved.url.includes('/node_modules/')
  ) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}
