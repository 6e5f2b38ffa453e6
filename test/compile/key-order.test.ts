import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { allPresets } from '../../generator/variants/variant-presets.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { randomQuery } from '../../generator/query/random-query.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { createRng, type Rng } from '../../generator/common/rng.ts';
import { SUITES } from '../../generator/suites/index.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';
import { canonicalKey } from '../../generator/query/walk.ts';

/** The same JSON with every object's keys in a shuffled order (arrays keep theirs). */
function permuteKeys<T>(value: T, rng: Rng): T {
  if (Array.isArray(value)) return value.map((v) => permuteKeys(v, rng)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, permuteKeys(v, rng)])) as T;
}

describe.each(Object.keys(BUILT_IN_DOMAINS))('a %s query whose JSON keys are permuted', (name) => {
  const domain = BUILT_IN_DOMAINS[name]!;
  const index = indexDomain(domain);
  const schemas = allPresets(index).map((v) => buildRelationalSchema(index, v));
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny' });
  const rng = createRng(`key-order/${name}`);
  const queries: Query[] = [
    ...(SUITES['paper']!.domains[name] ?? []).map((q) => q.query),
    ...Array.from({ length: 150 }, (_, i) => randomQuery(index, instance, rng.fork(String(i)))),
  ];

  it('is the same query to the walker', () => {
    for (const q of queries) expect(canonicalKey(permuteKeys(q, rng))).toBe(canonicalKey(q));
  });

  it('compiles to the same SQL on every variant', () => {
    let permuted = 0;
    for (const [i, q] of queries.entries()) {
      const p = permuteKeys(q, rng.fork(`p${i}`));
      if (JSON.stringify(p) !== JSON.stringify(q)) permuted++;
      for (const s of schemas)
        expect(compileQuery(index, s, p), `query ${i} on ${s.variant.name}`).toBe(compileQuery(index, s, q));
    }
    // The draw did reorder keys (a shuffle that left every query as written would prove nothing).
    expect(permuted).toBeGreaterThan(queries.length / 2);
  });
});
