import { ConfigError } from '../common/errors.ts';
import { sha256 } from '../common/hash.ts';

/** PostgreSQL keeps the first 63 bytes of an identifier (NAMEDATALEN - 1) and silently drops the rest. */
export const MAX_IDENTIFIER_BYTES = 63;

function cutToBytes(text: string, bytes: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (used + size > bytes) break;
    out += ch;
    used += size;
  }
  return out;
}

/**
 * The PostgreSQL schema of one variant: `<prefix><variant>`, or, when that is longer than 63
 * bytes of UTF-8 (where PostgreSQL would truncate it and two variants could collide), its
 * first 54 bytes, `_` and 8 hex digits of its SHA-256: the same name every build, distinct
 * for distinct inputs.
 *
 * @example pgSchemaName('retail__', 'full_sti') // 'retail__full_sti'
 */
export function pgSchemaName(prefix: string, variant: string): string {
  const name = `${prefix}${variant}`;
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER_BYTES) return name;
  return `${cutToBytes(name, MAX_IDENTIFIER_BYTES - 9)}_${sha256(name).slice(0, 8)}`;
}

/** Every variant's schema name; refuses a prefix with a NUL byte, and names that would coincide. */
export function pgSchemaNames(prefix: string, variants: readonly string[]): string[] {
  if (prefix.includes('\0'))
    throw new ConfigError('--schema-prefix: contains a NUL byte, which PostgreSQL identifiers cannot hold');
  const names = variants.map((v) => pgSchemaName(prefix, v));
  const seen = new Map<string, string>();
  names.forEach((name, i) => {
    const other = seen.get(name);
    if (other !== undefined)
      throw new ConfigError(`--schema-prefix: variants ${other} and ${variants[i]} would share the schema "${name}"`);
    seen.set(name, variants[i] as string);
  });
  return names;
}

/**
 * Where a variant is loaded before the swap on a shared database (a server or an outside
 * PGlite): a short name derived from the final one, so a killed build leaves the final
 * schema untouched and the next build finds and replaces its leftovers.
 */
export function stagingSchemaName(finalName: string): string {
  return `equisql_staging_${sha256(finalName).slice(0, 16)}`;
}
