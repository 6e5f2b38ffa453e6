import type { Domain } from '../../generator/er-model/er-model.ts';
import type { ConceptualInstance, EntityObject, Link } from '../../generator/instance/conceptual-instance.ts';
import type { RelationalSchema } from '../../generator/variants/relational-schema.ts';
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

/**
 * The names of an imported draft mapped to the original model's, by where each element is
 * stored: a draft entity's table is the built table of one class, an attribute's column (or
 * child table) the built column of one attribute, a relationship's reference column or table
 * the built one of one relationship. Undefined for an element the built schema does not
 * name one-to-one (a class read from a discriminator has no table of its own).
 */
export function originalNames(
  draft: Domain,
  built: RelationalSchema,
  original?: Domain,
): { entities: Map<string, string>; attributes: Map<string, string>; relationships: Map<string, string> } {
  const entities = new Map<string, string>();
  const attributes = new Map<string, string>();
  const relationships = new Map<string, string>();
  const table = (name: string | undefined) => built.tables.find((t) => t.name === name);
  const draftIndex = indexDomain(draft);
  // A class with no table has its columns copied into its subclasses' tables.
  const below = (name: string) => table(draftIndex.subtree(name).find((x) => x.storage !== undefined)?.storage?.table);
  for (const e of draft.entities) {
    // The class on top of its own table; else the class of its discriminator value, or of its flag, in its ancestor's.
    const holder = [...draftIndex.chain(e.name)].reverse().find((x) => x.storage !== undefined);
    const t = table(e.storage?.table) ?? table(holder?.storage?.table);
    if (t?.role.kind === 'entity') {
      const value = holder?.storage?.discriminator?.values[e.name];
      const typed = Object.entries(t.role.typeValues).find(([, v]) => v === value)?.[0];
      const flag = t.columns.find((c) => c.role.kind === 'flag' && c.name === holder?.storage?.flags?.[e.name])?.role;
      const found =
        e.storage !== undefined ? t.role.classes[0] : (typed ?? (flag?.kind === 'flag' ? flag.entity : undefined));
      if (found !== undefined) entities.set(e.name, found);
    }
    for (const a of e.attributes) {
      const child = a.storage?.table !== undefined ? table(a.storage.table) : undefined;
      if (child?.role.kind === 'multiValued') attributes.set(a.name, child.role.attribute);
      const role = (t ?? below(e.name))?.columns.find((c) => c.name === a.storage?.column)?.role;
      if (role?.kind === 'attribute' || role?.kind === 'nested') attributes.set(a.name, role.attribute);
    }
  }
  // A class with no table (an abstract class of concrete tables) is the original parent of its subclasses' originals.
  if (original) {
    const index = indexDomain(original);
    for (let more = true; more; ) {
      more = false;
      for (const e of draft.entities) {
        if (entities.has(e.name)) continue;
        const below = draft.entities.filter((c) => c.parent === e.name).map((c) => entities.get(c.name));
        const parents = new Set(below.map((n) => (n === undefined ? undefined : index.entity(n).parent)));
        const [parent] = parents;
        if (below.length > 0 && parents.size === 1 && parent !== undefined) {
          entities.set(e.name, parent);
          more = true;
        }
      }
    }
  }
  for (const r of draft.relationships) {
    const from = draft.entities.find((e) => e.name === r.from);
    const t = table(r.storage?.table ?? from?.storage?.table) ?? below(r.from);
    const role = r.storage?.table !== undefined ? t?.role : t?.columns.find((c) => c.name === r.storage?.column)?.role;
    if (role?.kind === 'relationship' || role?.kind === 'reference') relationships.set(r.name, role.relationship);
    for (const a of r.attributes ?? []) {
      const c = t?.columns.find((col) => col.name === a.storage?.column)?.role;
      if (c?.kind === 'relationshipAttribute') attributes.set(`${r.name}.${a.name}`, c.attribute);
    }
  }
  return { entities, attributes, relationships };
}

/**
 * An instance read through an imported draft, under the original model's names (see
 * `originalNames`), with each link turned round where the draft reads a relationship from
 * its other end. Throws naming the first element it cannot map.
 */
export function renameInstance(
  instance: ConceptualInstance,
  draft: Domain,
  built: RelationalSchema,
  original: Domain,
): ConceptualInstance {
  const names = originalNames(draft, built, original);
  const get = (map: Map<string, string>, key: string, what: string): string => {
    const v = map.get(key);
    if (v === undefined) throw new Error(`no original name for ${what} ${key}`);
    return v;
  };
  const objects: Record<string, EntityObject[]> = {};
  for (const [root, list] of Object.entries(instance.objects)) {
    objects[get(names.entities, root, 'entity')] = list.map((o) => ({
      id: o.id,
      classes: o.classes.map((c) => get(names.entities, c, 'entity')).sort(),
      values: Object.fromEntries(Object.entries(o.values).map(([k, v]) => [get(names.attributes, k, 'attribute'), v])),
    }));
  }
  const links: Record<string, Link[]> = {};
  for (const [rel, list] of Object.entries(instance.links)) {
    const name = get(names.relationships, rel, 'relationship');
    const draftRel = draft.relationships.find((r) => r.name === rel);
    const want = original.relationships.find((r) => r.name === name);
    const turned =
      want !== undefined &&
      draftRel !== undefined &&
      want.from !== want.to &&
      names.entities.get(draftRel.from) === want.to;
    links[name] = list.map((l) => ({
      from: turned ? l.to : l.from,
      to: turned ? l.from : l.to,
      ...(l.values
        ? {
            values: Object.fromEntries(
              Object.entries(l.values).map(([k, v]) => [get(names.attributes, `${rel}.${k}`, 'attribute'), v]),
            ),
          }
        : {}),
    }));
  }
  return { domain: instance.domain, objects, links };
}
