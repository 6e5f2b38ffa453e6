import type { AttributeType } from '../er-model/er-model.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import { quoteIdent } from '../common/sql-text.ts';
import type { Database } from '../database/database.ts';
import type { ConceptualInstance, EntityObject, Link, Scalar, Value } from '../instance/conceptual-instance.ts';
import { canonicalSet } from '../instance/canonical-instance.ts';
import type { Column, RelationalSchema, Table } from '../variants/relational-schema.ts';
import { ShredError } from '../common/errors.ts';
import { createShredContext, shredTable } from '../shred/shred-rows.ts';

/** PostgreSQL's text form of a value, back to the instance's canonical scalar. */
export function parseScalar(text: string, type: AttributeType | { kind: 'id' }): Scalar {
  switch (type.kind) {
    case 'id':
    case 'integer':
    case 'bigint':
      return Number(text);
    case 'boolean':
      return text === 'true' || text === 't';
    default:
      return text;
  }
}

/** The SQL that reads a column as text; sets come back as a JSON array of element texts. */
function readExpression(column: Column): string {
  const q = quoteIdent(column.name);
  const r = column.role;
  if (r.kind === 'nested') {
    return r.encoding === 'array' ? `to_json(${q}::text[])::text` : `${q}::text`;
  }
  return `${q}::text`;
}

interface Draft {
  readonly id: number;
  readonly isA: Set<string>;
  readonly values: Record<string, Value>;
}

/**
 * Reconstructs the conceptual instance from a variant's tables, reading every row of every
 * table (nothing is taken from memory). Anything the tables say twice is cross-checked;
 * values found where the model has none are kept, so a comparison with the original
 * instance reports them.
 */
export async function readInstance(
  db: Database,
  pgSchema: string,
  schema: RelationalSchema,
  index: ErIndex,
): Promise<ConceptualInstance> {
  return (await readVariant(db, pgSchema, schema, index)).instance;
}

/** What a variant's database holds: the instance read from it, and every table's rows. */
export interface VariantContents {
  readonly instance: ConceptualInstance;
  /** Table name → its rows, each a JSON array of cells in shredding's text form. */
  readonly tables: ReadonlyMap<string, readonly string[]>;
}

/**
 * Reads every table of a variant and reconstructs the conceptual instance from them; keeps
 * the rows too, so `tableDifferences` can check nothing else is in the tables.
 */
export async function readVariant(
  db: Database,
  pgSchema: string,
  schema: RelationalSchema,
  index: ErIndex,
): Promise<VariantContents> {
  await db.exec(`SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'`);
  return readVariantRows(schema, index, (table) => readTable(db, pgSchema, table));
}

/**
 * The reconstruction behind `readVariant`, from any store: `readRows` gives a table's rows
 * ordered by primary key, each cell in PostgreSQL's text output (a set as a JSON array of
 * element texts, or its JSONB text). The SQLite files are read back through it too.
 */
export async function readVariantRows(
  schema: RelationalSchema,
  index: ErIndex,
  readRows: (table: Table) => Promise<(string | null)[][]>,
): Promise<VariantContents> {
  const tableRows = new Map<string, string[]>();
  const drafts = new Map<string, Map<number, Draft>>();
  for (const root of index.roots) drafts.set(root.name, new Map());
  const links = new Map<string, Map<string, Link>>();
  for (const rel of index.domain.relationships) links.set(rel.name, new Map());
  const sets = new Map<string, Map<number, Scalar[]>>();

  const draftOf = (root: string, id: number): Draft => {
    const map = drafts.get(root) as Map<number, Draft>;
    let d = map.get(id);
    if (!d) {
      d = { id, isA: new Set(), values: {} };
      map.set(id, d);
    }
    return d;
  };
  const addChain = (d: Draft, entity: string): void => {
    for (const e of index.chain(entity)) d.isA.add(e.name);
  };
  const addLink = (rel: string, link: Link): void => {
    (links.get(rel) as Map<string, Link>).set(`${link.from}/${link.to}`, link);
  };

  for (const table of schema.tables) {
    const rows = await readRows(table);
    const role = table.role;
    const columns = table.columns;
    tableRows.set(
      table.name,
      rows.map((row) => JSON.stringify(row.map((cell, i) => shredForm(cell, columns[i] as Column)))),
    );
    for (const row of rows) {
      const cell = (i: number): string | null => row[i] ?? null;
      if (role.kind === 'relationship') {
        let from = 0;
        let to = 0;
        const values: Record<string, Value> = {};
        columns.forEach((c, i) => {
          const r = c.role;
          if (r.kind === 'end') r.end === 'from' ? (from = Number(cell(i))) : (to = Number(cell(i)));
          else if (r.kind === 'relationshipAttribute') values[r.attribute] = cellValue(cell(i), c);
        });
        addLink(role.relationship, hasAttributes(index, role.relationship) ? { from, to, values } : { from, to });
        continue;
      }
      if (role.kind === 'multiValued') {
        const key = `${role.entity}.${role.attribute}`;
        let byOwner = sets.get(key);
        if (!byOwner) sets.set(key, (byOwner = new Map()));
        const owner = Number(cell(0));
        const list = byOwner.get(owner) ?? [];
        list.push(parseScalar(cell(1) as string, columns[1]?.valueType ?? { kind: 'text' }));
        byOwner.set(owner, list);
        continue;
      }
      const d = draftOf(role.root, Number(cell(0)));
      const typeIndex = columns.findIndex((c) => c.role.kind === 'type');
      const typeClass = typeIndex >= 0 ? classOfType(role.typeValues, cell(typeIndex), table) : undefined;
      if (role.kind === 'registry') {
        addChain(d, typeClass as string);
        continue;
      }
      if (role.mode === 'concrete') {
        addChain(d, typeClass ?? (table.role.kind === 'entity' ? soleTypedClass(index, role.classes) : role.root));
      } else {
        addChain(d, role.classes[0] as string);
        if (typeClass) addChain(d, typeClass);
      }
      columns.forEach((c, i) => {
        const r = c.role;
        const text = cell(i);
        switch (r.kind) {
          case 'flag':
            if (text === 'true' || text === 't') addChain(d, r.entity);
            break;
          case 'attribute':
            if (text !== null) d.values[r.attribute] = parseScalar(text, c.valueType);
            break;
          case 'nested':
            if (text !== null) {
              const elements = JSON.parse(text) as unknown[];
              d.values[r.attribute] = canonicalSet(
                elements.map((e) => (typeof e === 'boolean' ? e : parseScalar(String(e), c.valueType))),
              );
            }
            break;
          case 'reference':
            if (text !== null) {
              const values: Record<string, Value> = {};
              columns.forEach((other, j) => {
                if (other.role.kind === 'relationshipAttribute' && other.role.relationship === r.relationship)
                  values[other.role.attribute] = cellValue(cell(j), other);
              });
              addLink(
                r.relationship,
                hasAttributes(index, r.relationship)
                  ? { from: d.id, to: Number(text), values }
                  : { from: d.id, to: Number(text) },
              );
            }
            break;
          default:
            break;
        }
      });
    }
  }

  // Assemble: most specific classes, defaults for absent values, sets from child tables.
  const objects: Record<string, EntityObject[]> = {};
  for (const root of index.roots) {
    const list: EntityObject[] = [];
    for (const d of [...(drafts.get(root.name) as Map<number, Draft>).values()].sort((a, b) => a.id - b.id)) {
      const classes = [...d.isA].filter((c) => !index.children(c).some((k) => d.isA.has(k.name))).sort();
      for (const c of d.isA) {
        for (const attribute of index.ownAttributes(c)) {
          if (attribute.multiValued) {
            const fromTable = sets.get(`${c}.${attribute.name}`)?.get(d.id);
            if (fromTable) d.values[attribute.name] = canonicalSet(fromTable);
            else if (!(attribute.name in d.values)) d.values[attribute.name] = [];
          } else if (!(attribute.name in d.values)) {
            d.values[attribute.name] = null;
          }
        }
      }
      list.push({ id: d.id, classes, values: d.values });
    }
    objects[root.name] = list;
  }
  // Set elements whose owner is not an instance of the owning class show up as extra objects.
  for (const [key, byOwner] of sets) {
    const [entity, attribute] = key.split('.') as [string, string];
    const root = index.root(entity).name;
    const known = new Set(
      (objects[root] ?? []).filter((o) => o.classes.some((c) => index.isAncestorOrSelf(entity, c))).map((o) => o.id),
    );
    for (const owner of byOwner.keys()) {
      if (!known.has(owner))
        (objects[root] as EntityObject[]).push({
          id: owner,
          classes: [`?${entity}`],
          values: { [attribute]: canonicalSet(byOwner.get(owner) ?? []) },
        });
    }
  }
  const linkLists: Record<string, Link[]> = {};
  for (const [rel, map] of links) linkLists[rel] = [...map.values()].sort((a, b) => a.from - b.from || a.to - b.to);
  return { instance: { domain: index.domain.name, objects, links: linkLists }, tables: tableRows };
}

/**
 * A cell as read (text output, sets as JSON) in the form shredding writes it: booleans
 * as t/f, arrays as fully quoted literals in stored order, JSONB re-serialized compactly.
 */
function shredForm(cell: string | null, column: Column): string | null {
  if (cell === null) return null;
  const r = column.role;
  if (r.kind === 'nested') {
    if (r.encoding === 'jsonb') return JSON.stringify(JSON.parse(cell));
    const elements = JSON.parse(cell) as (string | null)[];
    const text = (e: string | null): string => {
      if (e === null) return 'NULL';
      const value = column.valueType.kind === 'boolean' ? (e === 'true' ? 't' : 'f') : e;
      return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
    };
    return `{${elements.map(text).join(',')}}`;
  }
  if (column.valueType.kind === 'boolean') return cell === 'true' || cell === 't' ? 't' : 'f';
  return cell;
}

/**
 * Rows the tables hold beyond, or short of, what the instance read from them shreds into:
 * an object stored twice, a discriminator that contradicts a subclass table, a value on a
 * row of the wrong class, a duplicate set element, a set element of the wrong JSON type.
 * Empty when the tables are exactly the shredding of their own instance.
 */
export function tableDifferences(
  index: ErIndex,
  schema: RelationalSchema,
  contents: VariantContents,
  limit = 5,
): string[] {
  const out: string[] = [];
  let context: ReturnType<typeof createShredContext>;
  try {
    context = createShredContext(index, contents.instance);
  } catch (error) {
    return [`the instance read back cannot be shredded again: ${(error as Error).message}`];
  }
  for (const table of schema.tables) {
    let expected: string[];
    try {
      expected = [...shredTable(context, schema, table)].map((row) => JSON.stringify(row));
    } catch (error) {
      out.push(
        `table ${table.name}: the instance read back cannot be shredded again: ${(error as Error).message.split('\n')[0]}`,
      );
      continue;
    }
    const actual = contents.tables.get(table.name) ?? [];
    const remaining = new Map<string, number>();
    for (const row of expected) remaining.set(row, (remaining.get(row) ?? 0) + 1);
    const extra: string[] = [];
    for (const row of actual) {
      const n = remaining.get(row) ?? 0;
      if (n > 0) remaining.set(row, n - 1);
      else extra.push(row);
    }
    const missing = [...remaining].flatMap(([row, n]) => Array<string>(n).fill(row));
    for (const row of extra.slice(0, limit))
      out.push(`table ${table.name}: row not implied by the instance: ${row.slice(0, 200)}`);
    for (const row of missing.slice(0, limit))
      out.push(`table ${table.name}: row the instance implies is missing: ${row.slice(0, 200)}`);
  }
  return out;
}

function hasAttributes(index: ErIndex, relationship: string): boolean {
  return (index.relationship(relationship).attributes ?? []).length > 0;
}

function cellValue(text: string | null, column: Column): Value {
  return text === null ? null : parseScalar(text, column.valueType);
}

function soleTypedClass(index: ErIndex, classes: readonly string[]): string {
  const typed = classes.filter((c) => index.canBeDirect(c));
  return typed[0] ?? (classes[0] as string);
}

function classOfType(typeValues: Readonly<Record<string, string>>, value: string | null, table: Table): string {
  const found = Object.entries(typeValues).find(([, v]) => v === value);
  if (!found) throw new ShredError(`table ${table.name}: unknown type value ${JSON.stringify(value)}`);
  return found[0];
}

async function readTable(db: Database, pgSchema: string, table: Table): Promise<(string | null)[][]> {
  const select = table.columns.map((c, i) => `${readExpression(c)} AS c${i}`).join(', ');
  const order = table.primaryKey.map(quoteIdent).join(', ');
  const rows = await db.query(
    `SELECT ${select} FROM ${quoteIdent(pgSchema)}.${quoteIdent(table.name)} ORDER BY ${order}`,
  );
  return rows.map((row) => table.columns.map((_, i) => (row[`c${i}`] ?? null) as string | null));
}
