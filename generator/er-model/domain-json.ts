import { ConfigError } from '../common/errors.ts';
import type { Domain } from './er-model.ts';
import { freezeCanonical, validateDomain } from './validate-domain.ts';

/**
 * Reads a domain from its JSON form: `origin` (usually the file path) starts every message.
 * Syntax errors name the line and column; model errors name the path.
 *
 * @example
 * parseDomainJson('{"name": "shop",}', 'shop.json')
 * // throws ConfigError: shop.json:1:17: invalid JSON: expected a property name in double quotes, got '}'
 */
export function parseDomainJson(text: string, origin: string): Domain {
  return validateDomain(withoutSchemaKey(parseJsonStrict(text, origin)), origin);
}

/** A top-level `$schema` only points an editor at schemas/er-model.schema.json. */
function withoutSchemaKey(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('$schema' in value)) return value;
  const { $schema: _schema, ...rest } = value as Record<string, unknown>;
  return rest;
}

/**
 * The JSON form of a domain: keys in canonical order, 2-space indent, short flat lists and
 * objects on one line, a trailing newline. The same domain always gives the same bytes.
 */
export function domainToJson(domain: Domain): string {
  return `${printJson(freezeCanonical(domain), '')}\n`;
}

const LINE_WIDTH = 100;

function isFlat(value: unknown): boolean {
  const scalar = (v: unknown): boolean => v === null || typeof v !== 'object';
  if (Array.isArray(value)) return value.every(scalar);
  if (typeof value === 'object' && value !== null) {
    return Object.values(value).every((v) => scalar(v) || (Array.isArray(v) && v.every(scalar)));
  }
  return true;
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return entries.length === 0
      ? '{}'
      : `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')} }`;
  }
  return JSON.stringify(value);
}

/** `prefix` is what precedes the value on its line, to decide whether it fits inline. */
function printJson(value: unknown, indent: string, prefix = ''): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (isFlat(value)) {
    const text = inline(value);
    if (indent.length + prefix.length + text.length <= LINE_WIDTH) return text;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => `${inner}${printJson(item, inner)}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as object).filter(([, v]) => v !== undefined);
  const lines = entries.map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return `${inner}${key}${printJson(v, inner, key)}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

/** Far beyond any model (about six levels) and far within the stack. */
export const MAX_JSON_DEPTH = 64;

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

function showChar(ch: string | undefined): string {
  if (ch === undefined) return 'the end of the file';
  if (ch === '\n' || ch === '\r') return 'a line break';
  return ch < ' ' ? JSON.stringify(ch) : `'${ch}'`;
}

/**
 * A strict JSON reader with messages of our own (V8's differ between versions and may quote
 * whole lines of input) that also rejects duplicate keys, which `JSON.parse` silently drops.
 */
function parseJsonStrict(text: string, origin: string): unknown {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let at = 0;
  const fail = (message: string, offset = at): never => {
    throw new JsonSyntaxError(message, offset);
  };
  const skipSpace = (): void => {
    while (at < source.length && ' \t\n\r'.includes(source[at] as string)) at++;
  };
  const expectWord = (word: string, value: unknown): unknown => {
    if (source.startsWith(word, at)) {
      at += word.length;
      return value;
    }
    return fail(`unexpected ${showChar(source[at])}`);
  };
  const readString = (): string => {
    const start = at;
    at++;
    while (at < source.length) {
      const ch = source[at] as string;
      if (ch === '"') {
        at++;
        return JSON.parse(source.slice(start, at)) as string;
      }
      if (ch === '\\') {
        const escape = source[at + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(source.slice(at + 2, at + 6))) fail('invalid \\u escape in string');
          at += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
          at += 2;
        } else {
          fail(`invalid escape ${showChar(escape === undefined ? undefined : `\\${escape}`)} in string`);
        }
        continue;
      }
      if (ch < ' ')
        fail(ch === '\n' || ch === '\r' ? 'unterminated string' : `control character ${showChar(ch)} in string`);
      at++;
    }
    return fail('unterminated string', start);
  };
  const readNumber = (): number => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(at));
    if (match === null) return fail(`unexpected ${showChar(source[at])}`);
    at += match[0].length;
    return Number(match[0]);
  };
  let depth = 0;
  const nest = <T>(read: () => T): T => {
    // Recursion on hostile input would end in a stack overflow, not in a message.
    if (++depth > MAX_JSON_DEPTH) fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const value = read();
    depth--;
    return value;
  };
  const readValue = (): unknown => {
    skipSpace();
    const ch = source[at];
    if (ch === '{') return nest(readObject);
    if (ch === '[') return nest(readArray);
    if (ch === '"') return readString();
    if (ch === 't') return expectWord('true', true);
    if (ch === 'f') return expectWord('false', false);
    if (ch === 'n') return expectWord('null', null);
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return readNumber();
    return fail(
      ch === undefined ? 'unexpected end of the file, expected a value' : `expected a value, got ${showChar(ch)}`,
    );
  };
  const readArray = (): unknown[] => {
    const items: unknown[] = [];
    at++;
    skipSpace();
    if (source[at] === ']') {
      at++;
      return items;
    }
    for (;;) {
      items.push(readValue());
      skipSpace();
      const ch = source[at];
      if (ch === ']') {
        at++;
        return items;
      }
      if (ch !== ',') fail(`expected ',' or ']' after a list item, got ${showChar(ch)}`);
      at++;
      skipSpace();
      if (source[at] === ']') fail("trailing ',' before ']'", at);
    }
  };
  const readObject = (): Record<string, unknown> => {
    const object: Record<string, unknown> = {};
    at++;
    skipSpace();
    if (source[at] === '}') {
      at++;
      return object;
    }
    for (;;) {
      skipSpace();
      if (source[at] !== '"') fail(`expected a property name in double quotes, got ${showChar(source[at])}`);
      const keyAt = at;
      const key = readString();
      if (Object.hasOwn(object, key)) fail(`duplicate key ${JSON.stringify(key)}`, keyAt);
      skipSpace();
      if (source[at] !== ':')
        fail(`expected ':' after property name ${JSON.stringify(key)}, got ${showChar(source[at])}`);
      at++;
      // defineProperty, not assignment: a key named __proto__ must stay a plain key.
      Object.defineProperty(object, key, { value: readValue(), enumerable: true, writable: true, configurable: true });
      skipSpace();
      const ch = source[at];
      if (ch === '}') {
        at++;
        return object;
      }
      if (ch !== ',') fail(`expected ',' or '}' after a property value, got ${showChar(ch)}`);
      at++;
    }
  };

  try {
    const value = readValue();
    skipSpace();
    if (at < source.length) fail(`unexpected ${showChar(source[at])} after the end of the JSON value`);
    return value;
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const before = source.slice(0, error.offset);
    const line = before.split('\n').length;
    const column = error.offset - (before.lastIndexOf('\n') + 1) + 1;
    throw new ConfigError(`${origin}:${line}:${column}: invalid JSON: ${error.message}`);
  }
}
