import type { Rng } from '../../generator/common/rng.ts';

/** One step from a key or index to a child. */
type Step = string | number;

/** A mutated copy of a JSON value and what was done to it, for failure messages. */
export interface Mutant {
  readonly value: unknown;
  /** Nesting too deep to build as objects travels as text instead. */
  readonly text?: string;
  readonly label: string;
}

const WRONG_TYPES: readonly unknown[] = ['x', 7, 0, null, [], {}, true, false, 2.5];
const HUGE_NUMBERS: readonly unknown[] = [
  1e308,
  -1e308,
  2 ** 53 + 1,
  -1,
  'NaN',
  99999999999999999999,
  1e-308,
  -0,
  4294967296,
];
const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  'a'.repeat(10_000),
  'line\nbreak',
  'tab\there\r\u0000nul\u001b[31m',
  `quo'te"s\`back\\slash`,
  'Zoë 日本語 🙂',
  '__proto__',
  'constructor',
  'toString',
  "'; DROP TABLE account; --",
  'select',
  'user',
  'Id',
  '1abc',
  '\u2028',
];

/** Every path in a JSON tree, root first. */
function paths(value: unknown, at: Step[] = [], out: Step[][] = []): Step[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  return out;
}

function get(value: unknown, path: readonly Step[]): unknown {
  let node = value;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node;
}

/** Sets, as an own property even for a key such as __proto__. */
function set(root: unknown, path: readonly Step[], next: unknown): unknown {
  if (path.length === 0) return next;
  const parent = get(root, path.slice(0, -1)) as Record<string | number, unknown>;
  Object.defineProperty(parent, path.at(-1) as string | number, {
    value: next,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return root;
}

function show(path: readonly Step[]): string {
  return path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('') || '(root)';
}

/** A JSON copy that keeps own keys named __proto__ (structuredClone and JSON.parse do). */
export function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** `depth` levels of `[` or `{"a":` around a value, as text. */
function deepText(depth: number, rng: Rng): string {
  return rng.chance(0.5)
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/**
 * Applies one to three seeded mutations to a copy of `source`: a deleted key or element, a
 * value of the wrong type, a huge or odd number, an odd string, deep nesting, a duplicated
 * list entry, a list repeated to thousands of entries, two string values swapped, or an
 * unknown key.
 */
export function mutate(source: unknown, rng: Rng): Mutant {
  let value = copy(source);
  const labels: string[] = [];
  let deep: { path: Step[]; depth: number } | undefined;
  const rounds = rng.weighted([6, 3, 1]) + 1;
  for (let round = 0; round < rounds; round++) {
    const all = paths(value);
    const path = rng.pick(all);
    const parent = path.length === 0 ? undefined : get(value, path.slice(0, -1));
    const kind = rng.pick([
      'delete',
      'delete',
      'wrongType',
      'wrongType',
      'huge',
      'odd',
      'odd',
      'deep',
      'duplicate',
      'many',
      'swap',
      'unknownKey',
    ] as const);
    switch (kind) {
      case 'delete':
        if (path.length === 0) continue;
        if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
        else delete (parent as Record<string, unknown>)[path.at(-1) as string];
        labels.push(`delete ${show(path)}`);
        break;
      case 'wrongType': {
        const next = rng.pick(WRONG_TYPES);
        value = set(value, path, copy(next));
        labels.push(`${show(path)} = ${JSON.stringify(next)}`);
        break;
      }
      case 'huge': {
        const next = rng.pick(HUGE_NUMBERS);
        value = set(value, path, next);
        labels.push(`${show(path)} = ${String(next)}`);
        break;
      }
      case 'odd': {
        const next = rng.pick(ODD_STRINGS);
        value = set(value, path, next);
        labels.push(`${show(path)} = ${JSON.stringify(next.slice(0, 20))}`);
        break;
      }
      case 'deep': {
        // Deep enough to overflow a recursive reader, so it travels as text.
        const depth = rng.pick([50, 200, 20_000, 100_000]);
        if (depth <= 200) {
          let nested: unknown = 1;
          for (let i = 0; i < depth; i++) nested = rng.chance(0.5) ? [nested] : { a: nested };
          value = set(value, path, nested);
        } else {
          value = set(value, path, '\u0000DEEP\u0000');
          deep = { path, depth };
        }
        labels.push(`${show(path)} nested ${depth} deep`);
        break;
      }
      case 'duplicate': {
        const lists = all.filter((p) => Array.isArray(get(value, p)) && (get(value, p) as unknown[]).length > 0);
        if (lists.length === 0) continue;
        const list = rng.pick(lists);
        const items = get(value, list) as unknown[];
        items.push(copy(rng.pick(items)));
        labels.push(`duplicate an entry of ${show(list)}`);
        break;
      }
      case 'many': {
        // Thousands of entries where a handful is usual: caps must refuse them quickly.
        const lists = all.filter((p) => Array.isArray(get(value, p)) && (get(value, p) as unknown[]).length > 0);
        if (lists.length === 0) continue;
        const list = rng.pick(lists);
        const items = get(value, list) as unknown[];
        const n = rng.pick([300, 3000]);
        value = set(
          value,
          list,
          Array.from({ length: n }, (_, i) => items[i % items.length]),
        );
        labels.push(`${show(list)} repeated to ${n} entries`);
        // The last round: further rounds would walk (and copy) thousands of entries.
        round = rounds;
        break;
      }
      case 'swap': {
        const strings = all.filter((p) => typeof get(value, p) === 'string' && p.length > 0);
        if (strings.length < 2) continue;
        const a = rng.pick(strings);
        const b = rng.pick(strings);
        const va = get(value, a);
        value = set(value, a, get(value, b));
        value = set(value, b, va);
        labels.push(`swap ${show(a)} and ${show(b)}`);
        break;
      }
      case 'unknownKey': {
        const objects = all.filter((p) => {
          const v = get(value, p);
          return v !== null && typeof v === 'object' && !Array.isArray(v);
        });
        if (objects.length === 0) continue;
        const at = rng.pick(objects);
        const key = rng.pick(['__proto__', 'constructor', 'nmae', 'extra', '']);
        value = set(value, [...at, key], rng.pick(WRONG_TYPES));
        labels.push(`add key ${JSON.stringify(key)} at ${show(at)}`);
        break;
      }
    }
  }
  if (deep === undefined) return { value, label: labels.join('; ') || 'unchanged' };
  const text = JSON.stringify(value).replace('"\\u0000DEEP\\u0000"', deepText(deep.depth, rng));
  return { value: undefined, text, label: labels.join('; ') };
}

/** The mutant as JSON text, as a user's file would hold it. */
export function mutantText(mutant: Mutant): string {
  return mutant.text ?? JSON.stringify(mutant.value) ?? 'undefined';
}

/** The mutant as a value, parsing deep text with JSON.parse the way `compile` reads a query. */
export function mutantValue(mutant: Mutant): unknown {
  if (mutant.text === undefined) return mutant.value;
  try {
    return JSON.parse(mutant.text);
  } catch {
    return undefined;
  }
}
