import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { createHash } from 'node:crypto';
import { stableStringify } from '../common/hash.ts';
import { SCALE_PRESETS, type InstanceProfile, type ScalePreset } from '../instance/conceptual-instance.ts';
import type { VariantSpec } from '../variants/variant-spec.ts';
import { interruptedBuild } from './dir-swap.ts';

export interface BuiltVariant {
  readonly name: string;
  readonly pg_schema: string;
  readonly tables: number;
  readonly rows: number;
  readonly schema_sha256: string;
  readonly dump_sha256: string;
  readonly spec: VariantSpec;
}

/** `build.json`: what was built, enough to regenerate the instance, find each variant and check every file. */
export interface BuildManifest {
  readonly dataset: string;
  readonly domain: string;
  readonly seed: string | number;
  readonly scale: ScalePreset;
  readonly profile: InstanceProfile;
  readonly counts: Readonly<Record<string, number>>;
  readonly instance_hash: string;
  /**
   * The main instance is the rows of a database (`build --instance-from`), not one generated
   * from the seed: where from (a URL without its password, or a file), and the sample size
   * when a sample was taken. Verify then checks every variant against `instance_hash`.
   */
  readonly instance_from?: { readonly source: string; readonly sample?: number };
  /** SHA-256 of `er.json`, so verify knows the model it regenerates from is the one built. */
  readonly er_sha256: string;
  /**
   * Where the variants were loaded. For PGlite, `location` is `pglite` (the directory's
   * own `DIR/pglite`), an absolute directory, or `memory`; for a server, `server`.
   */
  readonly database: { readonly kind: 'pglite' | 'postgres'; readonly location: string };
  readonly variants: readonly BuiltVariant[];
  /**
   * Only when built with `--engines postgres,sqlite`: the variants written as
   * `sqlite/<variant>.sqlite`, and those SQLite cannot hold, each with the reason.
   */
  readonly sqlite?: { readonly variants: readonly string[]; readonly not_held: Readonly<Record<string, string>> };
}

/** Seeds end up in file headers and manifests: keep them to plain, printable words, and exact. */
export function checkSeed(seed: string | number): void {
  if (typeof seed === 'number' && !Number.isSafeInteger(seed)) {
    throw new ConfigError(
      `--seed: ${seed} is not a whole number up to 2^53-1, which is all a JavaScript number holds exactly; give it as a string`,
    );
  }
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(String(seed))) {
    throw new ConfigError(`--seed: expected 1 to 64 letters, digits or . _ : -, got ${JSON.stringify(String(seed))}`);
  }
}

/**
 * A seed as given on the command line: a canonical whole number within 2^53-1 becomes a
 * number (so `--seed 42` and `seed: 42` in a config are one seed), anything else stays the
 * exact string, so `12345678901234567890` is never rounded into another seed.
 *
 * @example seedFromText('42') // 42
 * @example seedFromText('12345678901234567890') // '12345678901234567890'
 */
export function seedFromText(text: string): string | number {
  const n = Number(text);
  return /^-?\d+$/.test(text) && Number.isSafeInteger(n) && String(n) === text ? n : text;
}

/** The one-line comment that opens every schema and dump file. */
export function fileHeader(
  build: { readonly dataset: string; readonly seed: string | number; readonly scale: string; readonly profile: string },
  variant: VariantSpec,
  kind: string,
): string {
  return `-- equisql ${kind}: dataset ${build.dataset}, variant ${variant.name} (${variant.description}); seed ${build.seed}, scale ${build.scale}, profile ${build.profile}`;
}

const HEX64 = /^[0-9a-f]{64}$/;

function typeName(value: unknown): string {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value)
    ? 'an array'
    : typeof value === 'string'
      ? `the string ${JSON.stringify(value.slice(0, 40))}`
      : typeof value;
}

/**
 * Checks the shape of a parsed `build.json` and returns it typed. Each problem is a one-line
 * ConfigError naming the file and the field, e.g. `…/build.json: variants[0].spec: expected
 * an object, got the string "x"`.
 */
export function parseManifest(value: unknown, path: string): BuildManifest {
  const fail = (field: string, expected: string, got: unknown): never => {
    throw new ConfigError(`${path}: ${field}: expected ${expected}, got ${typeName(got)}`);
  };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(value)) return fail('the top level', 'an object', value);
  const m = value;
  for (const key of ['dataset', 'domain'] as const)
    if (typeof m[key] !== 'string' || m[key] === '') fail(key, 'a non-empty string', m[key]);
  if (typeof m['seed'] !== 'string' && typeof m['seed'] !== 'number') fail('seed', 'a string or a number', m['seed']);
  try {
    checkSeed(m['seed'] as string | number);
  } catch (error) {
    throw new ConfigError(`${path}: seed: ${(error as Error).message.replace(/^--seed: /, '')}`);
  }
  if (!SCALE_PRESETS.includes(m['scale'] as ScalePreset))
    fail('scale', `one of ${SCALE_PRESETS.join(', ')}`, m['scale']);
  if (m['profile'] !== 'default' && m['profile'] !== 'edge') fail('profile', 'default or edge', m['profile']);
  if (!isObject(m['counts'])) fail('counts', 'an object of entity counts', m['counts']);
  for (const [entity, n] of Object.entries(m['counts'] as Record<string, unknown>)) {
    if (!Number.isSafeInteger(n) || (n as number) < 0) fail(`counts.${entity}`, 'a whole number ≥ 0', n);
  }
  if (typeof m['instance_hash'] !== 'string' || !HEX64.test(m['instance_hash']))
    fail('instance_hash', 'a SHA-256 in hex', m['instance_hash']);
  if (typeof m['er_sha256'] !== 'string' || !HEX64.test(m['er_sha256']))
    fail('er_sha256', 'a SHA-256 in hex (build.json from an older equisql: rebuild)', m['er_sha256']);
  const database = m['database'];
  if (!isObject(database)) return fail('database', 'an object', database);
  if (database['kind'] !== 'pglite' && database['kind'] !== 'postgres')
    fail('database.kind', 'pglite or postgres', database['kind']);
  if (typeof database['location'] !== 'string' || database['location'] === '')
    fail('database.location', 'a non-empty string', database['location']);
  const variants = m['variants'];
  if (!Array.isArray(variants)) return fail('variants', 'an array', variants);
  if (variants.length === 0) throw new ConfigError(`${path}: variants: empty; a build has at least one variant`);
  const names = new Set<string>();
  const schemas = new Set<string>();
  variants.forEach((v: unknown, i) => {
    const at = `variants[${i}]`;
    if (!isObject(v)) return fail(at, 'an object', v);
    if (typeof v['name'] !== 'string' || !/^[a-z][a-z0-9_]*$/.test(v['name']))
      fail(`${at}.name`, 'a variant name (lower case letters, digits, _)', v['name']);
    if (names.has(v['name'] as string))
      throw new ConfigError(`${path}: ${at}.name: variant "${v['name'] as string}" is listed twice`);
    names.add(v['name'] as string);
    if (typeof v['pg_schema'] !== 'string' || v['pg_schema'] === '' || Buffer.byteLength(v['pg_schema']) > 63)
      fail(`${at}.pg_schema`, 'a schema name of 1 to 63 bytes', v['pg_schema']);
    if (schemas.has(v['pg_schema'] as string))
      throw new ConfigError(`${path}: ${at}.pg_schema: schema "${v['pg_schema'] as string}" is listed twice`);
    schemas.add(v['pg_schema'] as string);
    for (const key of ['tables', 'rows'])
      if (!Number.isSafeInteger(v[key]) || (v[key] as number) < 0) fail(`${at}.${key}`, 'a whole number ≥ 0', v[key]);
    for (const key of ['schema_sha256', 'dump_sha256'])
      if (typeof v[key] !== 'string' || !HEX64.test(v[key] as string)) fail(`${at}.${key}`, 'a SHA-256 in hex', v[key]);
    const spec = v['spec'];
    if (!isObject(spec)) return fail(`${at}.spec`, 'an object', spec);
    if (spec['name'] !== v['name']) fail(`${at}.spec.name`, JSON.stringify(v['name']), spec['name']);
    if (typeof spec['description'] !== 'string') fail(`${at}.spec.description`, 'a string', spec['description']);
    for (const key of ['hierarchies', 'multiValued', 'relationships', 'naming'])
      if (!isObject(spec[key])) fail(`${at}.spec.${key}`, 'an object', spec[key]);
    return undefined;
  });
  return m as unknown as BuildManifest;
}

/**
 * Reads and checks `build.json` of a built directory. A directory whose build was
 * interrupted while swapping in is refused by name.
 */
export function readManifest(dir: string): BuildManifest {
  const interrupted = interruptedBuild(dir);
  if (interrupted) throw new ConfigError(`--dir: ${dir}: ${interrupted}; rerun equisql build --out ${dir}`);
  const path = join(dir, 'build.json');
  if (!existsSync(path))
    throw new ConfigError(`--dir: ${dir} has no build.json (run equisql build --out ${dir} first)`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  return parseManifest(value, path);
}

/** The text of `build.json` for a manifest: sorted keys, two-space indent, final newline. */
export function manifestText(manifest: BuildManifest): string {
  return `${JSON.stringify(JSON.parse(stableStringify(manifest)), null, 2)}\n`;
}

/** SHA-256 of a file's bytes (the build hashes the UTF-8 text it writes); undefined if missing. */
export function fileSha256(path: string): string | undefined {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : undefined;
}
