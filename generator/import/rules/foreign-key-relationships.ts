import type { Cardinality } from '../../er-model/er-model.ts';
import type { CatalogForeignKey, CatalogTable } from '../catalog.ts';
import { isKey } from './finding.ts';
import { snakeName } from './lexicon-words.ts';

/** A foreign key read as a relationship from the table's class to the target's. */
export interface ForeignKeyRelationship {
  readonly table: string;
  readonly fk: CatalogForeignKey;
  readonly cardinality: Extract<Cardinality, 'many-to-one' | 'one-to-one'>;
  /** Some row has no partner: a key column may be NULL. */
  readonly optional: boolean;
  /** The name of the `to` end when the column says more than the target's name (`original_language`, `manager`). */
  readonly role?: string;
  readonly self: boolean;
}

/** A column name without its key suffix: `original_language_id` → `original_language`, `ReportsTo` → `reports_to`. */
export function endName(columns: readonly string[]): string {
  const base = snakeName(columns.join('_'));
  return base.replace(/_(id|key|fk|no|code)$/u, '') || base;
}

/**
 * Rule `foreign-key`: each foreign key of an entity table is a relationship to the target's
 * class: many-to-one, or one-to-one when its columns are unique; optional when a column
 * may be NULL. When the column's name is not the target's (several keys to one table,
 * a reference to the table itself), the name is kept as the end's role.
 *
 * @example a NOT NULL `film.language_id → language` is many-to-one, total, no role;
 * `film.original_language_id → language` is optional with role `original_language`.
 */
export function foreignKeyRelationship(table: CatalogTable, fk: CatalogForeignKey): ForeignKeyRelationship {
  const optional = fk.columns.some((c) => table.columns.find((col) => col.name === c)?.nullable !== false);
  const end = endName(fk.columns);
  const target = snakeName(fk.table);
  const sameTarget = table.foreignKeys.filter((o) => o.table === fk.table).length > 1;
  const self = fk.table === table.name;
  const named = end !== target && end !== target.replace(/s$/u, '');
  return {
    table: table.name,
    fk,
    cardinality: isKey(table, fk.columns) ? 'one-to-one' : 'many-to-one',
    optional,
    ...(named || sameTarget || self ? { role: end } : {}),
    self,
  };
}

/**
 * Rule `foreign-key-cycle`: the cycles among tables that reference each other (a store's
 * manager is a staff member who works at a store). Each is reported once, as the list of
 * its tables; the model keeps every relationship, so the instance generator must be able to
 * fill them in some order (it draws partners after objects).
 */
export function foreignKeyCycles(tables: readonly CatalogTable[]): string[][] {
  const edges = new Map(
    tables.map((t) => [t.name, [...new Set(t.foreignKeys.map((f) => f.table).filter((x) => x !== t.name))]]),
  );
  const cycles: string[][] = [];
  const seen = new Set<string>();
  // Tarjan's strongly connected components: every component of two or more tables holds a cycle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, order.get(w) as number));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const t of tables) if (!seen.has(t.name) && !order.has(t.name)) visit(t.name);
  return cycles;
}
