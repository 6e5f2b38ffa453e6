/**
 * The schema a fine-tuning prompt shows. `full` is the variant's DDL file as the build wrote
 * it (tables, then keys, checks, foreign keys and indexes as separate statements); `compact`
 * writes each table once with its keys, references and checks inline and no indexes, which
 * says the same about the data in fewer tokens; `compact+values` adds a few example values
 * per column, taken from the main instance's rows (as OmniSQL's and BIRD's prompts show them).
 */
import { quoteIdent, quoteLiteral } from '../common/sql-text.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { ConceptualInstance } from '../instance/conceptual-instance.ts';
import { createShredContext, shredTable } from '../shred/shred-rows.ts';
import type { Column, RelationalSchema, Table } from '../variants/relational-schema.ts';

export const PROMPT_SCHEMAS = ['full', 'compact', 'compact+values'] as const;
export type PromptSchema = (typeof PROMPT_SCHEMAS)[number];

/** Example values per table and column, as SQL literals (`'twitch'`, `42`, `true`). */
export type ColumnExamples = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

/** Values shown per column, and the longest a shown text may be before it is cut. */
export const EXAMPLES_PER_COLUMN = 2;
const EXAMPLE_CHARS = 40;

/**
 * The DDL a `full` prompt shows: the schema file without its header comment and session
 * settings, which describe how the file was made, not the schema.
 *
 * @example
 * fullDdl('-- equisql schema …\nSET client_encoding = \'UTF8\';\n\nCREATE TABLE t (id integer);\n'); // 'CREATE TABLE t (id integer);'
 */
export function fullDdl(schemaFile: string): string {
  return schemaFile
    .split('\n')
    .filter((line) => !line.startsWith('--') && !/^SET\s/u.test(line))
    .join('\n')
    .replace(/\n{3,}/gu, '\n\n')
    .trim();
}

const cols = (names: readonly string[]): string => names.map(quoteIdent).join(', ');

/** Tables in an order where each one's references come before it; what a cycle leaves is returned apart. */
function creationOrder(tables: readonly Table[]): { order: Table[]; deferred: Set<string> } {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const order: Table[] = [];
  const deferred = new Set<string>();
  const visiting = new Set<string>();
  const visit = (t: Table): void => {
    if (done.has(t.name)) return;
    visiting.add(t.name);
    for (const [i, fk] of t.foreignKeys.entries()) {
      const target = byName.get(fk.table);
      if (!target || target === t || done.has(target.name)) continue;
      // A reference back into the tables being created is added after them all.
      if (visiting.has(target.name)) deferred.add(`${t.name}\u0000${i}`);
      else visit(target);
    }
    visiting.delete(t.name);
    done.add(t.name);
    order.push(t);
  };
  for (const t of tables) visit(t);
  return { order, deferred };
}

/** A value as a prompt shows it: a number or boolean bare, text quoted and cut at 40 characters. */
function exampleLiteral(cell: string, column: Column): string {
  const type = column.valueType.kind;
  if (
    !column.sqlType.endsWith('[]') &&
    column.sqlType !== 'jsonb' &&
    ['integer', 'bigint', 'numeric', 'boolean', 'id'].includes(type)
  ) {
    return type === 'boolean' ? (cell === 't' || cell === 'true' ? 'true' : 'false') : cell;
  }
  const chars = [...cell];
  return quoteLiteral(chars.length > EXAMPLE_CHARS ? `${chars.slice(0, EXAMPLE_CHARS).join('')}…` : cell);
}

/** Columns whose values are object ids: an example of one says nothing a reader can use. */
function isKey(column: Column): boolean {
  return ['id', 'reference', 'owner', 'end'].includes(column.role.kind);
}

/**
 * Up to `EXAMPLES_PER_COLUMN` distinct values of each column that is not a key, the most
 * frequent first (ties in row order), read from every row of the instance's tables: the
 * values a person sees browsing the data, not those of one query's answer.
 *
 * @example
 * columnExamples(index, instance, schema).get('streamer')?.get('platform'); // ["'twitch'", "'youtube'", "'kick'"]
 */
export function columnExamples(index: ErIndex, instance: ConceptualInstance, schema: RelationalSchema): ColumnExamples {
  const context = createShredContext(index, instance);
  const out = new Map<string, Map<string, string[]>>();
  for (const table of schema.tables) {
    const counts = table.columns.map(() => new Map<string, number>());
    for (const row of shredTable(context, schema, table)) {
      row.forEach((cell, i) => {
        if (cell === null) return;
        const m = counts[i] as Map<string, number>;
        m.set(cell, (m.get(cell) ?? 0) + 1);
      });
    }
    const perColumn = new Map<string, string[]>();
    table.columns.forEach((column, i) => {
      if (isKey(column)) return;
      // Map keeps first-seen order, and the sort is stable: ties stay in row order.
      const ranked = [...(counts[i] as Map<string, number>)].sort((a, b) => b[1] - a[1]).slice(0, EXAMPLES_PER_COLUMN);
      if (ranked.length > 0)
        perColumn.set(
          column.name,
          ranked.map(([cell]) => exampleLiteral(cell, column)),
        );
    });
    out.set(table.name, perColumn);
  }
  return out;
}

/**
 * The compact DDL of a schema: one `CREATE TABLE` per table with its primary key, unique and
 * check constraints and its references inline, tables ordered so a reference never names a
 * table not yet created (a cycle's back references follow as `ALTER TABLE … ADD FOREIGN KEY`),
 * no indexes (they say nothing about the answer) and no comments. With `examples`, each
 * column is followed by a comment with its example values.
 *
 * @example
 * compactDdl(schema);
 * // CREATE TABLE streamer (
 * //     id integer PRIMARY KEY REFERENCES creator_account (id),
 * //     platform text NOT NULL,
 * //     CHECK (platform IN ('twitch', 'youtube'))
 * // );
 */
export function compactDdl(schema: RelationalSchema, examples?: ColumnExamples): string {
  const { order, deferred } = creationOrder(schema.tables);
  const statements: string[] = [];
  const later: string[] = [];
  for (const t of order) {
    const single = t.primaryKey.length === 1 ? t.primaryKey[0] : undefined;
    const inline = new Map<string, string>();
    const tableFks: string[] = [];
    t.foreignKeys.forEach((fk, i) => {
      const text = `REFERENCES ${quoteIdent(fk.table)} (${cols(fk.references)})`;
      if (deferred.has(`${t.name}\u0000${i}`))
        later.push(`ALTER TABLE ${quoteIdent(t.name)} ADD FOREIGN KEY (${cols(fk.columns)}) ${text};`);
      else if (fk.columns.length === 1 && !inline.has(fk.columns[0] as string))
        inline.set(fk.columns[0] as string, text);
      else tableFks.push(`FOREIGN KEY (${cols(fk.columns)}) ${text}`);
    });
    const lines = t.columns.map((c) => {
      const parts = [quoteIdent(c.name), c.sqlType];
      if (c.name === single) parts.push('PRIMARY KEY');
      else if (!c.nullable) parts.push('NOT NULL');
      const ref = inline.get(c.name);
      if (ref) parts.push(ref);
      return parts.join(' ');
    });
    const constraints = [
      ...(single === undefined ? [`PRIMARY KEY (${cols(t.primaryKey)})`] : []),
      ...t.uniques.map((u) => `UNIQUE (${cols(u)})`),
      ...t.checks.map((c) => `CHECK (${c})`),
      ...tableFks,
    ];
    const items = [...lines, ...constraints];
    const shown = examples?.get(t.name);
    const body = items.map((item, i) => {
      const comma = i < items.length - 1 ? ',' : '';
      const values = i < t.columns.length ? shown?.get((t.columns[i] as Column).name) : undefined;
      return `    ${item}${comma}${values ? ` -- e.g. ${values.join(', ')}` : ''}`;
    });
    statements.push(`CREATE TABLE ${quoteIdent(t.name)} (\n${body.join('\n')}\n);`);
  }
  return [...statements, ...later].join('\n');
}
