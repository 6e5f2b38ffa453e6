import type { Domain } from '../../generator/er-model/er-model.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';

/**
 * A model's shape with every name dropped: per entity its depth in its hierarchy and the
 * kinds of its own attributes (multi-valued marked), per relationship its cardinality and
 * the kinds of its attributes; both sorted. Two models with the same shape are equal up to
 * names.
 */
export function modelShape(domain: Domain): { entities: string[]; relationships: string[] } {
  const index = indexDomain(domain);
  const kinds = (attrs: Domain['entities'][number]['attributes']): string =>
    attrs
      .map((a) => `${a.type.kind === 'enum' ? `enum${a.type.values.length}` : a.type.kind}${a.multiValued ? '*' : ''}`)
      .sort()
      .join(',');
  return {
    entities: domain.entities.map((e) => `${index.chain(e.name).length - 1}:${kinds(e.attributes)}`).sort(),
    relationships: domain.relationships.map((r) => `${r.cardinality}:${kinds(r.attributes ?? [])}`).sort(),
  };
}
