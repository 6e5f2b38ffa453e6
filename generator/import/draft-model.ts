import { ConfigError } from '../common/errors.ts';
import { escapeControl } from '../common/user-text.ts';
import type {
  Attribute,
  Domain,
  Entity,
  EntityDiscriminator,
  EntityRegistry,
  EntityStorage,
  OpaqueColumn,
  Relationship,
  RelationshipStorage,
  ScaleCounts,
} from '../er-model/er-model.ts';
import { MODEL_LIMITS, validateDomain } from '../er-model/validate-domain.ts';
import type { CatalogColumn, CatalogForeignKey, CatalogTable } from './catalog.ts';
import type { SourceRead } from './read-source.ts';
import { referencesKey } from './column-profile.ts';
import { isAuditColumn } from './rules/audit-columns.ts';
import { type ChildTable, detectChildTable } from './rules/child-tables.ts';
import { detectRelationshipTable, detectSubclassTable } from './rules/class-table-inheritance.ts';
import { columnType } from './rules/attribute-types.ts';
import { readConcreteTables, sameColumnGroups } from './rules/concrete-tables.ts';
import { type Finding, ruleContext, type RuleContext } from './rules/finding.ts';
import { endName, foreignKeyCycles, foreignKeyRelationship } from './rules/foreign-key-relationships.ts';
import { className, isNotNoun, nounWords, snakeName, words } from './rules/lexicon-words.ts';
import { detectFlagClasses } from './rules/flag-columns.ts';
import { detectLinkTable, type LinkTable } from './rules/link-tables.ts';
import { detectSingleTableHierarchy, type SingleTableHierarchy } from './rules/single-table-inheritance.ts';
import { valueHints } from './rules/value-hints.ts';
import { valueSet } from './rules/value-sets.ts';
import { referenceAttributeColumns } from './rules/reference-attributes.ts';
import { isIntegerKey, nativeSqlType, opaqueColumn } from './rules/physical-names.ts';

export interface DraftOptions {
  /** The model's name (default: from the source). */
  readonly name?: string;
}

/** The draft and every line of its report. */
export interface Draft {
  readonly domain: Domain;
  readonly findings: readonly Finding[];
}

/** How each table was read. */
type TableReading =
  | {
      readonly kind: 'entity';
      readonly table: CatalogTable;
      readonly entity: string;
      readonly parentKey?: CatalogForeignKey;
      readonly parentTable?: string;
    }
  | { readonly kind: 'link'; readonly link: LinkTable }
  | { readonly kind: 'child'; readonly child: ChildTable }
  | {
      readonly kind: 'relationship';
      readonly table: CatalogTable;
      readonly from: CatalogForeignKey;
      readonly to: CatalogForeignKey;
    }
  | { readonly kind: 'skipped'; readonly table: CatalogTable; readonly reason: string };

/**
 * Reads a source's catalog and rows into a draft E/R model, by the rules in `rules/`, in the
 * order shredding would be undone: tables first (link tables, owner-keyed child tables,
 * relationship tables, shared-key subclass tables, INHERITS, entity tables), then the
 * hierarchies in one table, then each table's columns and foreign keys. Every conclusion
 * and every omission is a finding. The draft passes the model validator.
 */
export function draftModel(read: SourceRead, options: DraftOptions = {}): Draft {
  // Concrete tables are read first: they add the classes that have no table, and the references no key states.
  const concrete = readConcreteTables(read.catalog, read.profile, read.concrete);
  const ctx = ruleContext(concrete.catalog, concrete.profile);
  const findings: Finding[] = [...concrete.findings];
  const note = (rule: string, subject: string, text: string, review = false): void => {
    findings.push({ rule, subject, text, ...(review ? { review } : {}) });
  };
  const enums = new Map(read.catalog.enums.map((e) => [e.name, e.values]));

  for (const o of read.catalog.others) note('left-out', o.name, `${o.kind}: ${o.note ?? 'not data'}`);

  // 1. What each table is.
  // The values each table's rows take in a column that may tell their kind.
  const kindsOf = (table: string): ReadonlySet<string> =>
    new Set((read.discriminators.get(table) ?? []).flatMap((d) => [...d.byValue.keys()]));
  const readings = classifyTables(ctx, note, kindsOf);
  const entityOf = new Map<string, string>();
  const usedClassNames = new Set<string>();
  for (const r of readings) {
    if (r.kind !== 'entity') continue;
    let name = r.entity;
    for (let i = 2; usedClassNames.has(name.toLowerCase()); i++) name = `${r.entity}${i}`;
    usedClassNames.add(name.toLowerCase());
    entityOf.set(r.table.name, name);
  }

  // 2. Entities, their attributes and hierarchies.
  const entities: Entity[] = [];
  const attributeNames = new Map<string, Set<string>>();
  const stiOf = new Map<string, SingleTableHierarchy>();
  const parentOfEntity = new Map<string, string>();
  // Classes read from a discriminator, and whether each has direct instances.
  const stiParents = new Map<string, boolean>();
  const hierarchyAttributes = new Map<string, Set<string>>();
  // Classes read from a discriminator: their table, the discriminator values of their rows, and the count of those rows.
  const stiClasses = new Map<string, StiClass>();
  // Classes read from flag columns, by table: each flag, and how many rows have it set.
  const flagClassesOf = new Map<string, FlagClassRows[]>();
  /**
   * Rule `subtype-reference`: the most specific class read from a discriminator or a flag
   * column that holds every row a foreign key references, when that is no chance: were the
   * referenced rows drawn from the whole table, all of them would fall in the class with a
   * probability of at most `SUBTYPE_CHANCE`. Read from the rows, so a guess at review.
   * Undefined when the target keeps no subtypes, when only the root holds the rows, or when
   * too few refer.
   */
  const referencedSubtype = (fromTable: string, fk: CatalogForeignKey): string | undefined => {
    const flagged = read.referencedFlags?.get(referencesKey(fromTable, fk.columns));
    const flagHolder = (flagClassesOf.get(fk.table) ?? [])
      .filter((c) => flagged !== undefined && flagged.rows > 0 && flagged.set.get(c.flag) === flagged.rows)
      .sort((a, b) => a.rows - b.rows)[0];
    if (flagHolder && flagged)
      return (flagHolder.rows / Math.max(1, ctx.tables.get(fk.table)?.rowCount ?? 0)) ** flagged.rows <= SUBTYPE_CHANCE
        ? flagHolder.name
        : undefined;
    const sti = stiOf.get(fk.table);
    const seen = read.referenced
      ?.get(referencesKey(fromTable, fk.columns))
      ?.find((d) => d.column === sti?.discriminator);
    if (!sti || !seen || seen.values.size === 0) return undefined;
    const holder = [...stiClasses.entries()]
      .filter(([, c]) => c.table === fk.table && [...seen.values.keys()].every((v) => c.values.includes(v)))
      .sort((a, b) => a[1].values.length - b[1].values.length)[0];
    if (!holder) return undefined;
    const all = sti.subtypes.reduce((n, s) => n + s.rows, 0);
    const referring = [...seen.values.values()].reduce((n, k) => n + k, 0);
    return (holder[1].rows / Math.max(1, all)) ** referring <= SUBTYPE_CHANCE ? holder[0] : undefined;
  };
  /** The rows of a class read from a discriminator or a flag column. */
  const subtypeRows = (cls: string): number =>
    stiClasses.get(cls)?.rows ?? [...flagClassesOf.values()].flat().find((c) => c.name === cls)?.rows ?? 0;
  for (const r of readings) {
    if (r.kind !== 'entity') continue;
    const sti = detectSingleTableHierarchy(r.table, read.discriminators.get(r.table.name) ?? []);
    if (sti) stiOf.set(r.table.name, sti);
  }
  for (const r of readings) {
    if (r.kind !== 'entity') continue;
    const t = r.table;
    const name = entityOf.get(t.name) as string;
    const tableParent = r.parentTable !== undefined ? entityOf.get(r.parentTable) : undefined;
    const subtypeParent = r.parentKey !== undefined ? referencedSubtype(t.name, r.parentKey) : undefined;
    const parent = subtypeParent ?? tableParent;
    // Names are kept unique across a whole hierarchy: sibling classes may overlap, and an
    // object of both may not have two attributes of one name.
    const rootOf = (n: string): string => {
      const p = parentOfEntity.get(n);
      return p === undefined ? n : rootOf(p);
    };
    if (parent !== undefined) parentOfEntity.set(name, parent);
    const hierarchyNames = hierarchyAttributes.get(rootOf(name)) ?? new Set<string>();
    hierarchyAttributes.set(rootOf(name), hierarchyNames);
    const inheritedNames = new Set([
      ...(parent !== undefined ? (attributeNames.get(parent) ?? []) : []),
      ...hierarchyNames,
    ]);
    const parentTable = r.parentTable !== undefined ? ctx.tables.get(r.parentTable) : undefined;
    const sti = stiOf.get(t.name);
    const stiColumns = new Set(
      sti
        ? [sti.discriminator, ...sti.subtypes.flatMap((s) => s.columns), ...sti.groups.flatMap((g) => g.columns)]
        : [],
    );
    // Overlapping classes kept as flag columns, where no discriminator tells the subtypes.
    const flagClasses = sti ? [] : detectFlagClasses(t);
    const skip = new Set<string>([
      ...fkColumns(t, ctx),
      ...referenceColumns(t, ctx),
      ...stiColumns,
      ...flagClasses.flatMap((f) => [f.flag, ...f.columns]),
    ]);
    // INHERITS copies the parent's columns into the child: they are inherited, not its own.
    if (r.parentKey === undefined && parentTable) for (const c of parentTable.columns) skip.add(c.name);
    for (const k of surrogateKey(t)) skip.add(k);
    const own = new Set<string>();
    const opaque: OpaqueColumn[] = [];
    const attributes = columnAttributes(
      t,
      t.columns.filter((c) => !skip.has(c.name)),
      name,
      inheritedNames,
      own,
      ctx,
      enums,
      note,
      opaque,
    );
    attributeNames.set(name, new Set([...(parent !== undefined ? (attributeNames.get(parent) ?? []) : []), ...own]));
    for (const n of own) hierarchyNames.add(n);
    // A subtype's reference and the attributes beside it are a relationship's, not the subtype's attributes.
    const notSubtypeAttributes = new Set([...fkColumns(t, ctx), ...referenceColumns(t, ctx)]);
    const stiRead = sti
      ? stiSubclasses(
          sti,
          t,
          name,
          usedClassNames,
          own,
          ctx,
          enums,
          note,
          stiParents,
          opaque,
          notSubtypeAttributes,
          stiClasses,
        )
      : undefined;
    const subclasses = [...(stiRead?.subclasses ?? [])];
    const flagRows: FlagClassRows[] = [];
    subclasses.push(
      ...flagSubclasses(
        flagClasses,
        t,
        name,
        usedClassNames,
        new Set([...inheritedNames, ...own]),
        ctx,
        enums,
        note,
        opaque,
        notSubtypeAttributes,
        flagRows,
      ),
    );
    if (flagRows.length > 0) flagClassesOf.set(t.name, flagRows);
    for (const sub of subclasses) {
      parentOfEntity.set(sub.name, sub.parent as string);
      attributeNames.set(
        sub.name,
        new Set([...(attributeNames.get(sub.parent as string) ?? []), ...sub.attributes.map((a) => a.name)]),
      );
    }
    const lexicon = nounWords(t.name, t.comment);
    // INHERITS copies columns into a table of its own, which no variant builds: such a class has no physical names.
    // A class the import added for concrete tables has no table of its own.
    const tableStorage =
      t.concrete?.abstract === true || (r.parentKey === undefined && parentTable && !t.concrete)
        ? undefined
        : entityStorage(t, opaque);
    const storage = tableStorage && {
      ...tableStorage,
      ...(t.concrete ? { concrete: true } : {}),
      ...(sti && stiRead
        ? { discriminator: discriminatorStorage(t, sti, name, stiRead.rootValue, stiClasses, enums) }
        : {}),
      ...(flagRows.length > 0 ? { flags: Object.fromEntries(flagRows.map((f) => [f.name, f.flag])) } : {}),
    };
    if (!storage && t.concrete?.abstract !== true)
      note(
        'physical-names',
        t.name,
        'no physical names: the native variant needs one integer key column (and no INHERITS)',
        true,
      );
    const entity: Entity = {
      name,
      ...(parent !== undefined ? { parent } : {}),
      attributes,
      lexicon,
      ...(parent === undefined
        ? { counts: scaleCounts(t.concrete?.rows ?? t.rowCount) }
        : {
            fraction: fractionOf(
              t.concrete?.rows ?? t.rowCount,
              subtypeParent !== undefined
                ? subtypeRows(subtypeParent)
                : (parentTable?.concrete?.rows ?? parentTable?.rowCount ?? 0),
            ),
          }),
      ...(storage ? { storage } : {}),
      ...(t.concrete?.registry ? { registry: registryStorage(t.concrete.registry, ctx, entityOf) } : {}),
    };
    if (subtypeParent !== undefined)
      note(
        'subtype-reference',
        t.name,
        `every row's key references a row of ${r.parentTable} that is a ${subtypeParent}: ${name} is a kind of ${subtypeParent}`,
        true,
      );
    if (parent !== undefined && t.concrete)
      note(
        'concrete-tables',
        t.name,
        `${name} is a kind of ${parent}${t.concrete.abstract ? ', with no table of its own' : ` (its table holds ${r.parentTable}'s columns too)`}`,
      );
    else if (parent !== undefined)
      note(
        r.parentKey ? 'shared-key-subtable' : 'inherits',
        t.name,
        `${name} is a kind of ${parent} (${r.parentKey ? `its key ${r.parentKey.columns.join(', ')} references ${r.parentTable}` : `INHERITS (${r.parentTable})`})`,
      );
    else if (t.concrete?.abstract) note('concrete-tables', t.name, `entity ${name}, with no table of its own`);
    else note('entity-table', t.name, `entity ${name} (key ${(t.primaryKey ?? []).join(', ')}, ${t.rowCount} rows)`);
    entities.push(entity);
    entities.push(...subclasses);
  }
  // Subclass fractions and specializations.
  const tableOfEntity = (n: string): string => [...entityOf.entries()].find(([, e]) => e === n)?.[0] ?? '';
  const withChildren = new Set(entities.filter((e) => e.parent !== undefined).map((e) => e.parent as string));
  const byName = new Map(entities.map((e) => [e.name, e]));
  for (const [i, e] of entities.entries()) {
    if (!withChildren.has(e.name)) continue;
    const concreteTable = ctx.tables.get(tableOfEntity(e.name))?.concrete;
    if (concreteTable) {
      // Concrete tables hold each object once, in its class's table: disjoint, and total where the class has no table.
      const total = concreteTable.abstract === true;
      entities[i] = { ...e, specialization: { disjoint: true, total } };
      byName.set(e.name, entities[i] as Entity);
      const children = entities.flatMap((c, j) => (c.parent === e.name ? [j] : []));
      const last = children.pop();
      if (total && last !== undefined) {
        // The shares of a total specialization sum to one exactly, whatever the rounding.
        const rest = children.reduce((s, j) => s + ((entities[j] as Entity).fraction ?? 0), 0);
        entities[last] = { ...(entities[last] as Entity), fraction: Math.round((1 - rest) * 1e6) / 1e6 };
        byName.set((entities[last] as Entity).name, entities[last] as Entity);
      }
      continue;
    }
    const children = entities.filter((c) => c.parent === e.name);
    const sum = children.reduce((s, c) => s + (c.fraction ?? 0), 0);
    // Subtypes from a discriminator are disjoint; subclass tables beside them may overlap them.
    const direct = stiParents.get(e.name);
    const onlySti = direct !== undefined && children.every((c) => !entityOf.has(tableOfEntity(c.name)));
    const total = onlySti && !direct && Math.abs(sum - 1) < 1e-9;
    entities[i] = { ...e, specialization: { disjoint: onlySti, total } };
    byName.set(e.name, entities[i] as Entity);
  }

  // 3. Multi-valued attributes stored in child tables.
  for (const r of readings) {
    if (r.kind !== 'child') continue;
    const tableOwner = entityOf.get(r.child.owner.table);
    const subtypeOwner = tableOwner !== undefined ? referencedSubtype(r.child.table.name, r.child.owner) : undefined;
    const owner = subtypeOwner ?? tableOwner;
    const ownerEntity = owner === undefined ? undefined : entities.findIndex((e) => e.name === owner);
    if (owner === undefined || ownerEntity === undefined || ownerEntity < 0) {
      note('left-out', r.child.table.name, `owner ${r.child.owner.table} is not an entity`);
      continue;
    }
    const reading = columnType(r.child.value, enums);
    if ('leftOut' in reading) {
      note('left-out', `${r.child.table.name}.${r.child.value.name}`, reading.leftOut);
      continue;
    }
    const ownerTable = r.child.owner.table;
    const prefixes = [
      `${snakeName(ownerTable)}_`,
      `${snakeName(className(ownerTable))}_`,
      ...(subtypeOwner !== undefined ? [`${snakeName(subtypeOwner)}_`] : []),
    ];
    const tableName = snakeName(r.child.table.name);
    const stem = prefixes.reduce((n, p) => (n.startsWith(p) && n.length > p.length ? n.slice(p.length) : n), tableName);
    const taken = attributeNames.get(owner) ?? new Set<string>();
    const attrName = claimName(attributeName(stem), taken);
    taken.add(attrName);
    const e = entities[ownerEntity] as Entity;
    const profile = ctx.profile.get(r.child.table.name)?.get(r.child.value.name);
    const set = valueSet(r.child.value, r.child.table, profile, enums);
    const type = set && set.source !== 'low-cardinality' ? { kind: 'enum' as const, values: set.values } : reading.type;
    const hints = valueHints(type, profile, false, set?.source === 'low-cardinality' ? set.values : undefined);
    const { unique: _unique, ...setHints } = hints ?? {};
    const ownerColumn = r.child.owner.columns.length === 1 ? r.child.owner.columns[0] : undefined;
    const storage =
      ownerColumn !== undefined
        ? { column: r.child.value.name, sqlType: nativeSqlType(r.child.value), table: r.child.table.name, ownerColumn }
        : undefined;
    entities[ownerEntity] = {
      ...e,
      attributes: [
        ...e.attributes,
        {
          name: attrName,
          type,
          optional: true,
          multiValued: true,
          lexicon: nounWords(stem),
          ...(Object.keys(setHints).length > 0 ? { hints: setHints } : {}),
          ...(storage ? { storage } : {}),
        },
      ],
    };
    note(
      'owner-keyed-child',
      r.child.table.name,
      `multi-valued attribute ${owner}.${attrName} (${r.child.value.name} per ${r.child.owner.columns.join(', ')})`,
    );
    if (subtypeOwner !== undefined)
      note(
        'subtype-reference',
        r.child.table.name,
        `every row's owner is a row of ${r.child.owner.table} that is a ${subtypeOwner}: the attribute is ${subtypeOwner}'s`,
        true,
      );
  }

  // 4. Relationships.
  const relationships: Relationship[] = [];
  // A relationship may become a table, so its name must differ from every entity's table.
  const relNames = new Set<string>(entities.map((e) => snakeName(e.name)));
  const claimRel = (base: string, fallback: string): string => {
    const name = relNames.has(base) ? claimName(fallback, relNames) : base;
    relNames.add(name);
    return name;
  };
  const rootEntity = (n: string): string => {
    const p = parentOfEntity.get(n);
    return p === undefined ? n : rootEntity(p);
  };
  // Per hierarchy, the reference columns its relationships name (see the validator's rule).
  const referenceColumnsOf = new Map<string, Set<string>>();
  for (const r of readings) {
    if (r.kind !== 'entity') continue;
    const from = entityOf.get(r.table.name) as string;
    // The columns of each foreign key read, and the table it reaches: a column holds one reference.
    const referenceOf = new Map<string, string>(r.parentKey ? [[r.parentKey.columns.join(), r.parentKey.table]] : []);
    // A concrete table copies its superclass's references down: they are the superclass's.
    const inherited = new Set(
      r.table.concrete?.parent !== undefined
        ? (ctx.tables.get(r.table.concrete.parent)?.columns.map((c) => c.name) ?? [])
        : [],
    );
    for (const fk of r.table.foreignKeys) {
      if (fk === r.parentKey || fk.columns.every((c) => inherited.has(c))) continue;
      const first = referenceOf.get(fk.columns.join());
      if (first !== undefined) {
        note(
          'left-out',
          `${r.table.name}.${fk.columns.join(',')}`,
          `a second foreign key on these columns (to ${fk.table}); the first, to ${first}, is the relationship`,
          true,
        );
        continue;
      }
      if (entityOf.has(fk.table)) referenceOf.set(fk.columns.join(), fk.table);
      const to = entityOf.get(fk.table);
      if (to === undefined) {
        note(
          'left-out',
          `${r.table.name}.${fk.columns.join(',')}`,
          ctx.tables.has(fk.table)
            ? `references ${fk.table}, which is not an entity`
            : `references ${fk.table}, which is not imported`,
        );
        continue;
      }
      const found = foreignKeyRelationship(r.table, fk);
      // Each reference of a hierarchy is a column named by its role (or its target): two keys
      // to one table whose names reduce to one role (`b_id`, `b_code`) keep their whole names.
      const roleColumns = referenceColumnsOf.get(rootEntity(from)) ?? new Set<string>();
      referenceColumnsOf.set(rootEntity(from), roleColumns);
      const roleColumn = (role: string | undefined): string =>
        snakeName(role === undefined || snakeName(role) === 'id' ? to : role);
      let rel = found;
      if (roleColumns.has(roleColumn(found.role))) {
        const role = claimName(snakeName(fk.columns.join('_')), new Set([...roleColumns, 'id']));
        rel = { ...found, role };
        note(
          'column-name',
          `${r.table.name}.${fk.columns.join(',')}`,
          `role ${role}: another reference is named ${roleColumn(found.role)}`,
          true,
        );
      }
      roleColumns.add(roleColumn(rel.role));
      const end = endName(fk.columns);
      const name = claimRel(
        `${snakeName(from)}_${snakeName(end === 'id' ? fk.table : end)}`,
        `${snakeName(r.table.name)}_${end}`,
      );
      const column = fk.columns.length === 1 ? r.table.columns.find((c) => c.name === fk.columns[0]) : undefined;
      const besideColumns = referenceAttributeColumns(r.table, fk);
      const opaque: OpaqueColumn[] = [];
      const beside = columnAttributes(
        r.table,
        r.table.columns.filter((c) => besideColumns.includes(c.name)),
        name,
        new Set(),
        new Set(),
        ctx,
        enums,
        note,
        opaque,
      );
      for (const a of beside)
        note(
          'reference-attribute',
          `${r.table.name}.${a.storage?.column ?? a.name}`,
          `attribute ${a.name} of relationship ${name}: a CHECK lets it hold a value only where ${fk.columns[0]} does`,
        );
      relationships.push({
        ...fkRelationship(name, from, to, rel.cardinality, rel.optional, rel.role),
        ...(beside.length > 0 ? { attributes: beside.map(asRelationshipAttribute) } : {}),
        ...(column ? { storage: { column: column.name, sqlType: nativeSqlType(column) } } : {}),
      });
      note(
        rel.self ? 'self-reference' : 'foreign-key',
        `${r.table.name}.${fk.columns.join(',')}`,
        `${rel.cardinality}${rel.optional ? ', optional' : ''} relationship ${name}: ${from} → ${to}${rel.role ? ` (role ${rel.role})` : ''}`,
      );
    }
  }
  for (const r of readings) {
    if (r.kind === 'relationship') {
      // Kept apart from a kind of X, the relationship is that kind's (rule `subtype-reference`).
      const from = referencedSubtype(r.table.name, r.from) ?? entityOf.get(r.from.table);
      const to = referencedSubtype(r.table.name, r.to) ?? entityOf.get(r.to.table);
      if (from === undefined || to === undefined) continue;
      const unique = r.table.uniques.some(
        (u) => u.length === r.to.columns.length && u.every((c) => r.to.columns.includes(c)),
      );
      const stem = snakeName(r.table.name).replace(
        new RegExp(`^${snakeName(r.from.table).replace(/s$/u, '')}s?_`, 'u'),
        '',
      );
      const name = claimRel(stem || snakeName(r.table.name), snakeName(r.table.name));
      const opaque: OpaqueColumn[] = [];
      const attrs = columnAttributes(
        r.table,
        r.table.columns.filter((c) => !fkColumns(r.table, ctx).has(c.name)),
        name,
        new Set(),
        new Set(),
        ctx,
        enums,
        note,
        opaque,
      );
      const role = endName(r.to.columns);
      const storage = tableStorage(r.table, r.from.columns, r.to.columns, opaque);
      relationships.push({
        ...fkRelationship(
          name,
          from,
          to,
          unique ? 'one-to-one' : 'many-to-one',
          true,
          role !== snakeName(r.to.table) ? role : undefined,
        ),
        ...(attrs.length > 0 ? { attributes: attrs.map(asRelationshipAttribute) } : {}),
        ...(storage ? { storage } : {}),
      });
      note(
        'relationship-table',
        r.table.name,
        `${unique ? 'one-to-one' : 'many-to-one'} relationship ${name}: ${from} → ${to}, stored in its own table`,
      );
    }
    if (r.kind === 'link') {
      const from = entityOf.get(r.link.from.table);
      const to = entityOf.get(r.link.to.table);
      if (from === undefined || to === undefined) {
        note('left-out', r.link.table.name, 'links a table that is not an entity');
        continue;
      }
      const name = claimRel(snakeName(r.link.table.name), `${snakeName(r.link.table.name)}_link`);
      const opaque: OpaqueColumn[] = [];
      const attrs = columnAttributes(
        r.link.table,
        r.link.attributes,
        name,
        new Set(),
        new Set(),
        ctx,
        enums,
        note,
        opaque,
      );
      for (const a of r.link.audit)
        note('audit-column', `${r.link.table.name}.${a.name}`, 'bookkeeping, never asked: kept in the DDL only', false);
      const storage = tableStorage(r.link.table, r.link.from.columns, r.link.to.columns, [
        ...opaque,
        ...r.link.audit.map(opaqueColumn),
      ]);
      relationships.push({
        name,
        from,
        to,
        cardinality: 'many-to-many',
        participation: { from: 'partial', to: 'partial' },
        ...(attrs.length > 0 ? { attributes: attrs.map(asRelationshipAttribute) } : {}),
        lexicon: {
          forward: `linked by ${words(r.link.table.name)} to`,
          reverse: `linked by ${words(r.link.table.name)} to`,
        },
        ...(storage ? { storage } : {}),
      });
      note(
        'link-table',
        r.link.table.name,
        `many-to-many relationship ${name}: ${from} ↔ ${to}${attrs.length > 0 ? ` with ${attrs.map((a) => a.name).join(', ')}` : ''}`,
      );
    }
  }

  // 5. What the rules report without concluding.
  for (const cycle of foreignKeyCycles(read.catalog.tables))
    note(
      'foreign-key-cycle',
      cycle.join(', '),
      `the tables reference each other in a cycle: kept, each reference a relationship`,
    );
  for (const g of sameColumnGroups(ctx.catalog.tables.filter((t) => entityOf.has(t.name) && !t.concrete))) {
    note(
      'same-columns',
      g.tables.join(', '),
      `share ${g.columns.join(', ')}: perhaps concrete tables of one class; kept apart`,
      true,
    );
  }

  // A model needs an entity: say which tables were there and why none became one.
  if (entities.length === 0) throw new ConfigError(noEntityMessage(read, findings));
  // Past the model's caps a draft cannot be valid: the user chooses the part to import.
  if (entities.length > MODEL_LIMITS.entities) {
    const first =
      [...entityOf.entries()].find(([, n]) => n === entities[MODEL_LIMITS.entities]?.name)?.[0] ??
      entities[MODEL_LIMITS.entities]?.name;
    throw new ConfigError(
      `${read.catalog.source}: ${entities.length} entities, more than the ${MODEL_LIMITS.entities} a model may have (the first beyond is table ${first}): choose tables with --tables`,
    );
  }
  if (relationships.length > MODEL_LIMITS.relationships) {
    throw new ConfigError(
      `${read.catalog.source}: ${relationships.length} relationships, more than the ${MODEL_LIMITS.relationships} a model may have (the first beyond is ${relationships[MODEL_LIMITS.relationships]?.name}): choose tables with --tables`,
    );
  }
  const domain: Domain = {
    name:
      options.name ??
      (snakeName(
        read.catalog.source
          .split(/[/\\]/u)
          .pop()
          ?.replace(/\.[^.]*$/u, '') ?? 'imported',
      ) ||
        'imported'),
    description: `Imported from ${read.catalog.engine === 'postgres' ? `schema ${read.catalog.schema} of ` : ''}${read.catalog.source}.`,
    entities,
    relationships,
  };
  return { domain: validateDomain(domain, 'the imported draft'), findings };
}

/**
 * Why a draft has no entity, in one line: no tables, or each table with the first words of
 * the reason it was left out (`heap (no primary key)`), the first few of them.
 */
function noEntityMessage(read: SourceRead, findings: readonly Finding[]): string {
  const { catalog } = read;
  if (catalog.tables.length === 0)
    return `${catalog.source}: no tables to import${catalog.engine === 'postgres' ? ` in schema "${catalog.schema}"` : ''}`;
  const shown = 5;
  const why = catalog.tables.slice(0, shown).map((t) => {
    const reason = findings.find((f) => f.rule === 'left-out' && f.subject === t.name)?.text ?? 'not an entity';
    return `${escapeControl(t.name)} (${reason.split(':')[0]})`;
  });
  const more = catalog.tables.length > shown ? `, and ${catalog.tables.length - shown} more` : '';
  return `${catalog.source}: no table could be read as an entity: ${why.join(', ')}${more}`;
}

function classifyTables(
  ctx: RuleContext,
  note: (rule: string, subject: string, text: string, review?: boolean) => void,
  kindsOf: (table: string) => ReadonlySet<string>,
): TableReading[] {
  const out: TableReading[] = [];
  const keyed = (name: string): boolean => ctx.tables.get(name)?.primaryKey !== undefined;
  for (const t of ctx.catalog.tables) {
    if (t.columns.length === 0) {
      out.push({ kind: 'skipped', table: t, reason: 'no columns' });
      continue;
    }
    const link = detectLinkTable(t, ctx);
    if (
      link &&
      keyed(link.from.table) &&
      keyed(link.to.table) &&
      link.from.table !== t.name &&
      link.to.table !== t.name
    ) {
      out.push({ kind: 'link', link });
      continue;
    }
    const child = detectChildTable(t, ctx);
    if (child && keyed(child.owner.table) && child.owner.table !== t.name) {
      out.push({ kind: 'child', child });
      continue;
    }
    // A registry is read with its hierarchy's root (rule `concrete-tables`).
    if (t.concrete?.isRegistry) continue;
    if (t.concrete?.parent !== undefined) {
      out.push({ kind: 'entity', table: t, entity: className(t.name), parentTable: t.concrete.parent });
      continue;
    }
    // INHERITS copies columns, not keys: the child is keyed by its parent's key.
    const inheritsKeyed = t.inherits.find((p) => keyed(p));
    if (!t.primaryKey && inheritsKeyed !== undefined) {
      out.push({ kind: 'entity', table: t, entity: className(t.name), parentTable: inheritsKeyed });
      continue;
    }
    if (!t.primaryKey) {
      out.push({
        kind: 'skipped',
        table: t,
        reason: 'no primary key: its rows cannot be told apart (add a key, or import it as a link table)',
      });
      continue;
    }
    const rel = detectRelationshipTable(t, ctx, kindsOf);
    if (rel) {
      out.push({ kind: 'relationship', table: t, ...rel });
      continue;
    }
    const sub = detectSubclassTable(t, ctx);
    if (sub) {
      out.push({ kind: 'entity', table: t, entity: className(t.name), parentKey: sub, parentTable: sub.table });
      continue;
    }
    const inherits = t.inherits.find((p) => keyed(p) || ctx.tables.has(p));
    out.push({
      kind: 'entity',
      table: t,
      entity: className(t.name),
      ...(inherits !== undefined ? { parentTable: inherits } : {}),
    });
  }
  for (const r of out) if (r.kind === 'skipped') note('left-out', r.table.name, r.reason);
  // Parents before children, so inherited attribute names are known when a child is read.
  const depth = (r: TableReading, seen = new Set<string>()): number => {
    if (r.kind !== 'entity' || r.parentTable === undefined || seen.has(r.table.name)) return 0;
    seen.add(r.table.name);
    const p = out.find((o) => o.kind === 'entity' && o.table.name === r.parentTable);
    return p ? 1 + depth(p, seen) : 0;
  };
  // A subclass whose parent is not an entity is an entity of its own.
  const entityTables = new Set(
    out.filter((r) => r.kind === 'entity').map((r) => (r as { table: CatalogTable }).table.name),
  );
  const fixed = out.map((r) =>
    r.kind === 'entity' && r.parentTable !== undefined && !entityTables.has(r.parentTable)
      ? { kind: 'entity' as const, table: r.table, entity: r.entity }
      : r,
  );
  return fixed
    .map((r, i) => ({ r, i, d: depth(r) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .map((x) => x.r);
}

/** The columns of foreign keys to tables the import reads: relationships, not attributes. */
function fkColumns(t: CatalogTable, ctx: RuleContext): Set<string> {
  return new Set(t.foreignKeys.filter((fk) => ctx.tables.has(fk.table)).flatMap((fk) => fk.columns));
}

/** The columns a CHECK ties to a foreign key of the table: attributes of that relationship (rule `reference-attribute`). */
function referenceColumns(t: CatalogTable, ctx: RuleContext): Set<string> {
  return new Set(
    t.foreignKeys.filter((fk) => ctx.tables.has(fk.table)).flatMap((fk) => referenceAttributeColumns(t, fk)),
  );
}

/** The key columns that are the model's surrogate id: a single key column, or the integer `…id` columns of a composite key. */
function surrogateKey(t: CatalogTable): string[] {
  const key = t.primaryKey ?? [];
  if (key.length === 1) return [...key];
  return key.filter((k) => {
    const c = t.columns.find((col) => col.name === k);
    return (
      c !== undefined && ['integer', 'bigint', 'smallint', 'uuid'].includes(c.type.kind) && /(^|_)id$|Id$/u.test(k)
    );
  });
}

/** A model-safe attribute name: `id` and `…_id` are the model's own. */
function attributeName(base: string): string {
  const n = snakeName(base);
  if (n === 'id') return 'identifier';
  return n.endsWith('_id') ? `${n.slice(0, -3)}_ident` : n;
}

function claimName(base: string, taken: ReadonlySet<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  return name;
}

function columnAttributes(
  t: CatalogTable,
  columns: readonly CatalogColumn[],
  owner: string,
  inherited: ReadonlySet<string>,
  own: Set<string>,
  ctx: RuleContext,
  enums: ReadonlyMap<string, readonly string[]>,
  note: (rule: string, subject: string, text: string, review?: boolean) => void,
  opaque: OpaqueColumn[] = [],
): Attribute[] {
  const out: Attribute[] = [];
  for (const c of columns) {
    const subject = `${t.name}.${c.name}`;
    if (c.generated !== undefined) {
      note('left-out', subject, `generated column (${c.generated}): derived, not a fact; kept in the DDL only`);
      opaque.push(opaqueColumn(c));
      continue;
    }
    const profile = ctx.profile.get(t.name)?.get(c.name);
    const reading = columnType(c, enums, profile);
    if ('leftOut' in reading) {
      note('left-out', subject, `${reading.leftOut}; kept in the DDL only`);
      opaque.push(opaqueColumn(c));
      continue;
    }
    if (out.length >= MODEL_LIMITS.attributes) {
      note(
        'left-out',
        subject,
        `more than the ${MODEL_LIMITS.attributes} attributes an entity may have; kept in the DDL only`,
      );
      opaque.push(opaqueColumn(c));
      continue;
    }
    const neverAsked = isAuditColumn(c);
    if (neverAsked) note('audit-column', subject, 'bookkeeping: kept, never asked');
    const base = attributeName(c.name);
    const name = claimName(base, new Set([...inherited, ...own]));
    own.add(name);
    if (name !== snakeName(c.name)) note('column-name', subject, `attribute named ${name}`, true);
    const set = valueSet(c, t, profile, enums);
    const type =
      set && set.source !== 'low-cardinality' && set.values.length > 0
        ? { kind: 'enum' as const, values: set.values }
        : reading.type;
    if (set?.source === 'enum-type') note('enum-type', subject, `enum ${set.name}: ${set.values.join(', ')}`);
    else if (set?.source === 'check-in') note('check-in', subject, `enum from a CHECK: ${set.values.join(', ')}`);
    else if (set?.source === 'low-cardinality')
      note(
        'low-cardinality',
        subject,
        `${set.values.length} values in the rows (${set.values.slice(0, 6).join(', ')}${set.values.length > 6 ? ', …' : ''}): a pool, not a closed set`,
        true,
      );
    if (reading.approximated) note('column-type', subject, reading.approximated, true);
    const multiValued = reading.multiValued !== undefined;
    if (multiValued && !neverAsked)
      note(
        reading.multiValued === 'json' ? 'json-array' : 'array-column',
        subject,
        `multi-valued attribute ${owner}.${name} (${reading.multiValued === 'json' ? 'a JSON array' : 'an array'})`,
      );
    const optional = multiValued || c.nullable;
    const hints = multiValued
      ? undefined
      : valueHints(type, profile, optional, set?.source === 'low-cardinality' ? set.values : undefined);
    const lexicon = nounWords(c.name, c.comment);
    if (isNotNoun(c.name) && !neverAsked)
      note('lexicon', subject, `"${words(c.name)}" is not a noun: reword its lexicon`, true);
    out.push({
      name,
      type,
      ...(optional ? { optional } : {}),
      ...(multiValued ? { multiValued } : {}),
      lexicon,
      ...(hints ? { hints } : {}),
      ...(neverAsked ? { neverAsked } : {}),
      storage: { column: c.name, sqlType: nativeSqlType(c), ...(multiValued && c.nullable ? { nullable: true } : {}) },
    });
  }
  return out;
}

function asRelationshipAttribute(a: Attribute): Attribute {
  const { multiValued: _m, hints, ...rest } = a;
  if (!hints) return rest;
  const { unique: _u, setSize: _s, ...h } = hints;
  return Object.keys(h).length > 0 ? { ...rest, hints: h } : rest;
}

/** A class read from a flag column: its flag, and how many rows have it set. */
interface FlagClassRows {
  readonly name: string;
  readonly flag: string;
  readonly rows: number;
}

/** The classes of a table's flag columns (rule `flag-column`), each owning the columns its flag governs. */
function flagSubclasses(
  flags: ReturnType<typeof detectFlagClasses>,
  t: CatalogTable,
  root: string,
  usedClassNames: Set<string>,
  taken: Set<string>,
  ctx: RuleContext,
  enums: ReadonlyMap<string, readonly string[]>,
  note: (rule: string, subject: string, text: string, review?: boolean) => void,
  opaque: OpaqueColumn[],
  notAttributes: ReadonlySet<string>,
  classes: FlagClassRows[],
): Entity[] {
  const out: Entity[] = [];
  const classOf = new Map<string, string>();
  const setRows = (flag: string): number =>
    ctx.profile
      .get(t.name)
      ?.get(flag)
      ?.values?.find((v) => v.value === 'true' || v.value === '1')?.count ?? 0;
  for (const f of flags) {
    const stem = f.flag.replace(/^(is|has)_/u, '');
    let name = className(stem);
    for (let n = 2; usedClassNames.has(name.toLowerCase()); n++) name = `${className(stem)}${n}`;
    usedClassNames.add(name.toLowerCase());
    classOf.set(f.flag, name);
    const parent = f.parentFlag !== undefined ? (classOf.get(f.parentFlag) ?? root) : root;
    const parentRows = f.parentFlag !== undefined ? setRows(f.parentFlag) : t.rowCount;
    const own = new Set<string>();
    const attributes = columnAttributes(
      t,
      t.columns.filter((c) => f.columns.includes(c.name) && !notAttributes.has(c.name)),
      name,
      taken,
      own,
      ctx,
      enums,
      note,
      opaque,
    );
    for (const n of own) taken.add(n);
    out.push({ name, parent, attributes, lexicon: nounWords(stem), fraction: fractionOf(setRows(f.flag), parentRows) });
    classes.push({ name, flag: f.flag, rows: setRows(f.flag) });
    note(
      'flag-column',
      `${t.name}.${f.flag}`,
      `rows with ${f.flag} set are ${name}, a kind of ${parent}${f.columns.length > 0 ? ` (only they may fill ${f.columns.join(', ')})` : ''}; the classes may overlap`,
      true,
    );
  }
  return out;
}

/** The largest chance of the referenced rows all falling in one subtype by accident that rule `subtype-reference` accepts. */
const SUBTYPE_CHANCE = 0.001;

/** A class read from a discriminator: its table, the values of its rows, and how many rows have them. */
interface StiClass {
  readonly table: string;
  readonly values: readonly string[];
  readonly rows: number;
  /** The value of the class's own rows, where it has any. */
  readonly direct?: string;
}

function stiSubclasses(
  sti: SingleTableHierarchy,
  t: CatalogTable,
  root: string,
  usedClassNames: Set<string>,
  rootOwn: Set<string>,
  ctx: RuleContext,
  enums: ReadonlyMap<string, readonly string[]>,
  note: (rule: string, subject: string, text: string, review?: boolean) => void,
  stiParents: Map<string, boolean>,
  opaque: OpaqueColumn[],
  notAttributes: ReadonlySet<string>,
  classes: Map<string, StiClass>,
): { readonly subclasses: Entity[]; readonly rootValue?: string } {
  const rowsOf = new Map(sti.subtypes.map((s) => [s.value, s.rows]));
  const ownCols = new Map(sti.subtypes.map((s) => [s.value, s.columns]));
  const claim = (base: string): string => {
    let name = base;
    for (let n = 2; usedClassNames.has(name.toLowerCase()); n++) name = `${base}${n}`;
    usedClassNames.add(name.toLowerCase());
    return name;
  };
  // Classes of the hierarchy in the table: intermediate groups (largest first), then values.
  interface Node {
    name: string;
    values: string[];
    columns: readonly string[];
    parent: string;
    label: string;
  }
  const nodes: Node[] = [];
  const absorbed = new Set<string>();
  // The root's own rows carry its name: the class's (`Product`), or, on rows that fill no
  // column of a subtype, a name whose words begin the table's or begin with them
  // (`content` in `content_items`, `consumer_account` in `consumers`).
  const inGroup = (v: string): boolean => sti.groups.some((g) => g.values.includes(v));
  const wordPrefix = (a: string, b: string): boolean =>
    a.startsWith(b) && (a.length === b.length || /[A-Z0-9]/u.test(a.charAt(b.length)));
  const tableClass = className(t.name);
  const rootValue =
    sti.subtypes.find((s) => className(s.value) === root)?.value ??
    sti.subtypes.find(
      (s) =>
        s.columns.length === 0 &&
        !inGroup(s.value) &&
        (wordPrefix(className(s.value), tableClass) || wordPrefix(tableClass, className(s.value))),
    )?.value;
  if (rootValue !== undefined) absorbed.add(rootValue);
  const smallestGroup = (values: readonly string[], exclude?: Node): Node | undefined =>
    nodes
      .filter((n) => n !== exclude && n.values.length > values.length && values.every((v) => n.values.includes(v)))
      .sort((a, b) => a.values.length - b.values.length)[0];
  for (const g of sti.groups) {
    // A value of the group that fills no column of its own names it: its rows are the group's direct instances.
    const naming = g.values.find((v) => (ownCols.get(v) ?? []).length === 0 && !absorbed.has(v));
    if (naming !== undefined) absorbed.add(naming);
    const label = naming ?? `${g.values[0]} group`;
    const node: Node = {
      name: claim(className(label.replaceAll(' ', '_'))),
      values: [...g.values],
      columns: g.columns,
      parent: root,
      label,
    };
    node.parent = smallestGroup(g.values, node)?.name ?? root;
    nodes.push(node);
  }
  for (const s of sti.subtypes) {
    if (absorbed.has(s.value)) continue;
    const node: Node = {
      name: claim(className(s.value)),
      values: [s.value],
      columns: s.columns,
      parent: root,
      label: s.value,
    };
    node.parent = smallestGroup([s.value])?.name ?? root;
    nodes.push(node);
  }
  const rowsIn = (n: Node | undefined): number =>
    n === undefined
      ? sti.subtypes.reduce((x, s) => x + s.rows, 0)
      : n.values.reduce((x, v) => x + (rowsOf.get(v) ?? 0), 0);
  const out: Entity[] = [];
  const taken = new Set(rootOwn);
  for (const parentName of [root, ...nodes.map((n) => n.name)]) {
    const parentNode = nodes.find((n) => n.name === parentName);
    const children = nodes.filter((n) => n.parent === parentName);
    if (children.length === 0) continue;
    const direct =
      parentNode === undefined
        ? rootValue !== undefined
        : parentNode.values.some(
            (v) => v !== rootValue && absorbed.has(v) && !children.some((c) => c.values.includes(v)),
          );
    stiParents.set(parentName, direct);
    let left = 1;
    for (const [i, c] of children.entries()) {
      const share = Math.round((rowsIn(c) / Math.max(1, rowsIn(parentNode))) * 1e6) / 1e6;
      const fraction = Math.max(0.001, !direct && i === children.length - 1 ? Math.round(left * 1e6) / 1e6 : share);
      left -= fraction;
      const own = new Set<string>();
      const attributes = columnAttributes(
        t,
        t.columns.filter((col) => c.columns.includes(col.name) && !notAttributes.has(col.name)),
        c.name,
        taken,
        own,
        ctx,
        enums,
        note,
        opaque,
      );
      for (const n of own) taken.add(n);
      // The root's own value is the root's, even where its rows fill a group's columns.
      const ownValue = c.values.find(
        (v) => v !== rootValue && !nodes.some((k) => k.parent === c.name && k.values.includes(v)),
      );
      classes.set(c.name, {
        table: t.name,
        values: c.values,
        rows: rowsIn(c),
        ...(ownValue !== undefined ? { direct: ownValue } : {}),
      });
      out.push({
        name: c.name,
        parent: parentName,
        attributes,
        lexicon: nounWords(c.label.replaceAll(' ', '_')),
        fraction,
      });
      note(
        'discriminator',
        `${t.name}.${sti.discriminator}`,
        `rows with ${sti.discriminator} in (${c.values.map((v) => `'${v}'`).join(', ')}) are ${c.name}, a kind of ${parentName}${c.columns.length > 0 ? ` (only they fill ${c.columns.join(', ')})` : ''}`,
        true,
      );
    }
  }
  return { subclasses: out, ...(rootValue !== undefined ? { rootValue } : {}) };
}

/** A discriminator's physical names: its column and type, and the value of each class's own rows. */
function discriminatorStorage(
  t: CatalogTable,
  sti: SingleTableHierarchy,
  root: string,
  rootValue: string | undefined,
  classes: ReadonlyMap<string, StiClass>,
  enums: ReadonlyMap<string, readonly string[]>,
): EntityDiscriminator {
  const column = t.columns.find((c) => c.name === sti.discriminator) as CatalogColumn;
  const values: Record<string, string> = rootValue !== undefined ? { [root]: rootValue } : {};
  const taken = new Set(Object.values(values));
  for (const [name, c] of classes) {
    if (c.table !== t.name || c.direct === undefined || taken.has(c.direct)) continue;
    values[name] = c.direct;
    taken.add(c.direct);
  }
  const sqlType = nativeSqlType(column);
  const labels = enums.get(sqlType);
  return { column: column.name, sqlType, values, ...(labels ? { labels: [...labels] } : {}) };
}

/** A concrete hierarchy's registry as the source names it, each kind given to the class of its table. */
function registryStorage(
  registry: NonNullable<NonNullable<CatalogTable['concrete']>['registry']>,
  ctx: RuleContext,
  entityOf: ReadonlyMap<string, string>,
): EntityRegistry {
  const t = ctx.tables.get(registry.table) as CatalogTable;
  const key = t.columns.find((c) => c.name === t.primaryKey?.[0]) as CatalogColumn;
  const column = t.columns.find((c) => c.name === registry.column) as CatalogColumn;
  const values = Object.fromEntries(
    Object.entries(registry.kinds).flatMap(([table, kind]) => {
      const cls = entityOf.get(table);
      return cls === undefined ? [] : [[cls, kind]];
    }),
  );
  // The registry's CHECK, in its order, so the native variant writes it alike.
  const check = t.checks.find((c) => c.inList?.column === column.name)?.inList?.values;
  return {
    table: t.name,
    key: key.name,
    keyType: nativeSqlType(key),
    discriminator: { column: column.name, sqlType: nativeSqlType(column), values },
    ...(check ? { check: [...check] } : {}),
  };
}

/** An entity table's physical names: its table, its one integer key column, its unique keys and the columns kept in the DDL only. */
function entityStorage(t: CatalogTable, opaque: readonly OpaqueColumn[]): EntityStorage | undefined {
  const surrogate = surrogateKey(t);
  const keyColumn = surrogate.length === 1 ? t.columns.find((c) => c.name === surrogate[0]) : undefined;
  if (!keyColumn || !isIntegerKey(keyColumn)) return undefined;
  const primaryKey = t.primaryKey ?? [];
  return {
    table: t.name,
    key: keyColumn.name,
    keyType: nativeSqlType(keyColumn),
    ...(primaryKey.length > 1 ? { primaryKey: [...primaryKey] } : {}),
    ...(t.uniques.length > 0 ? { uniques: t.uniques.map((u) => [...u]) } : {}),
    ...(opaque.length > 0 ? { opaque: [...opaque] } : {}),
  };
}

/** A relationship table's physical names, when each end is one column. */
function tableStorage(
  t: CatalogTable,
  fromColumns: readonly string[],
  toColumns: readonly string[],
  opaque: readonly OpaqueColumn[],
): RelationshipStorage | undefined {
  const from = fromColumns.length === 1 ? t.columns.find((c) => c.name === fromColumns[0]) : undefined;
  const to = toColumns.length === 1 ? t.columns.find((c) => c.name === toColumns[0]) : undefined;
  if (!from || !to) return undefined;
  // A unique key on exactly the two ends is the table's key itself.
  const uniques = t.uniques
    .filter((u) => !(u.length === 2 && u.includes(from.name) && u.includes(to.name)))
    .map((u) => [...u]);
  return {
    table: t.name,
    fromColumn: from.name,
    fromSqlType: nativeSqlType(from),
    column: to.name,
    sqlType: nativeSqlType(to),
    ...(uniques.length > 0 ? { uniques } : {}),
    ...(opaque.length > 0 ? { opaque: [...opaque] } : {}),
  };
}

function fractionOf(rows: number, parentRows: number): number {
  // An empty subclass table still names a class: it gets the smallest share the model allows.
  if (parentRows <= 0 || rows <= 0) return 0.001;
  return Math.min(1, Math.max(0.001, Math.round((rows / parentRows) * 1e6) / 1e6));
}

/** Instance counts per scale: the source's row count is the paper scale. */
export function scaleCounts(rows: number): ScaleCounts {
  const cap = (n: number): number => Math.max(1, Math.min(MODEL_LIMITS.countPerEntity, Math.round(n)));
  return {
    tiny: cap(Math.ceil(rows / 100)),
    small: cap(Math.ceil(rows / 10)),
    paper: cap(rows),
    large: cap(rows * 10),
  };
}

function fkRelationship(
  name: string,
  from: string,
  to: string,
  cardinality: 'many-to-one' | 'one-to-one',
  optional: boolean,
  role: string | undefined,
): Relationship {
  const safeRole = role === undefined || role === 'id' ? undefined : snakeName(role);
  const label = safeRole ? words(safeRole) : undefined;
  return {
    name,
    from,
    to,
    cardinality,
    participation: { from: optional ? 'partial' : 'total', to: 'partial' },
    ...(safeRole ? { role: safeRole } : {}),
    lexicon: label
      ? { forward: `with as ${label}`, reverse: `${label} of` }
      : { forward: 'belonging to', reverse: 'having' },
  };
}
