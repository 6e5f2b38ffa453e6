import { sha256 } from '../common/hash.ts';
import type { ConceptualInstance, Scalar, Value } from './conceptual-instance.ts';

/** Total order on canonical scalars: numbers numerically, then strings by code point. */
export function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A set value in canonical form: distinct elements, sorted. */
export function canonicalSet(values: readonly Scalar[]): Scalar[] {
  const sorted = [...values].sort(compareScalars);
  return sorted.filter((v, i) => i === 0 || compareScalars(sorted[i - 1] as Scalar, v) !== 0);
}

function valuesText(values: Readonly<Record<string, Value>> | undefined): string {
  if (!values) return '{}';
  const keys = Object.keys(values).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(values[k])}`).join(',')}}`;
}

/**
 * The instance as one canonical text: objects by root and id, links by relationship and
 * ends, attribute keys sorted. Equal instances give equal text, whatever built them.
 */
export function canonicalInstanceText(instance: ConceptualInstance): string {
  const lines: string[] = [`domain ${instance.domain}`];
  for (const root of Object.keys(instance.objects).sort()) {
    const objects = [...(instance.objects[root] ?? [])].sort((a, b) => a.id - b.id);
    lines.push(`objects ${root} ${objects.length}`);
    for (const o of objects) lines.push(`${o.id} ${[...o.classes].sort().join('+')} ${valuesText(o.values)}`);
  }
  for (const rel of Object.keys(instance.links).sort()) {
    const links = [...(instance.links[rel] ?? [])].sort((a, b) => a.from - b.from || a.to - b.to);
    lines.push(`links ${rel} ${links.length}`);
    for (const l of links) lines.push(`${l.from} ${l.to} ${valuesText(l.values)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** SHA-256 of the canonical text. */
export function instanceHash(instance: ConceptualInstance): string {
  return sha256(canonicalInstanceText(instance));
}

/**
 * The first few lines where two instances differ, for reports. Empty when they are equal.
 */
export function diffInstances(expected: ConceptualInstance, actual: ConceptualInstance, limit = 5): string[] {
  const a = canonicalInstanceText(expected).split('\n');
  const b = canonicalInstanceText(actual).split('\n');
  const setB = new Set(b);
  const setA = new Set(a);
  const out: string[] = [];
  for (const line of a) if (!setB.has(line) && out.length < limit) out.push(`missing: ${line.slice(0, 200)}`);
  for (const line of b) if (!setA.has(line) && out.length < limit * 2) out.push(`unexpected: ${line.slice(0, 200)}`);
  return out;
}
