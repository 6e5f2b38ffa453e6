/**
 * Checks on compiled SQL text for the habits of machine-made SQL that a careful engineer
 * avoids. They read the compiler's own layout (one clause per line, `AS` before every
 * alias), which is all they are for; each returns what it found, empty when the SQL is clean.
 */

const COMPARISON = String.raw`(?:=|<>|<=|>=|<|>)`;
const COLUMN = String.raw`[\w"]+\.[\w"]+`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A reference that stands whole: not the tail of a longer name. */
function whole(text: string): string {
  return String.raw`(?<![\w".])${escapeRegExp(text)}(?![\w"])`;
}

/**
 * Columns tested `IS NOT NULL` as a conjunct (after WHERE, AND or ON) where the same
 * statement also compares that column: the comparison is not true on NULL, so the test
 * says nothing more.
 */
export function findImpliedNotNull(sql: string): string[] {
  const found: string[] = [];
  for (const m of sql.matchAll(new RegExp(String.raw`\b(?:WHERE|AND|ON)\s+(${COLUMN}) IS NOT NULL`, 'g'))) {
    const column = m[1] as string;
    const compared = new RegExp(String.raw`${whole(column)}\s*${COMPARISON}\s|\s${COMPARISON}\s*${whole(column)}`).test(
      sql,
    );
    if (compared && !found.includes(column)) found.push(column);
  }
  return found;
}

/** Aliases of tables, derived tables and set-returning functions, in order of appearance. */
export function tableAliases(sql: string): { alias: string; table?: string }[] {
  const out: { index: number; alias: string; table?: string }[] = [];
  for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+([\w"]+)(?:\s+AS\s+([\w"]+))?(?=[\s;)]|$)/g)) {
    if (m[1] === 'LATERAL') continue;
    out.push({ index: m.index, alias: m[2] ?? (m[1] as string), table: m[1] as string });
  }
  for (const m of sql.matchAll(/\bAS\s+([\w"]+)\(/g)) out.push({ index: m.index, alias: m[1] as string });
  // A derived table's alias closes its parenthesis and is followed by ON or the next clause
  // (an output column's alias is followed by a comma or FROM instead).
  for (const m of sql.matchAll(
    /\)\s+AS\s+([\w"]+)(?=\s+ON\b|\s*\n\s*(?:JOIN|LEFT JOIN|CROSS JOIN|WHERE|GROUP|ORDER|LIMIT|\))|\s*$)/g,
  )) {
    out.push({ index: m.index, alias: m[1] as string });
  }
  return out
    .sort((a, b) => a.index - b.index)
    .map(({ alias, table }) => (table === undefined ? { alias } : { alias, table }));
}

/** Table aliases longer than six characters or with `_link` in them. */
export function findLongAliases(sql: string): string[] {
  return tableAliases(sql)
    .map((a) => a.alias.replaceAll('"', ''))
    .filter((a) => a.length > 6 || a.includes('_link'));
}

/** The balanced parenthesized text that opens at `start` (an opening parenthesis). */
function balanced(sql: string, start: number): string {
  let depth = 0;
  for (let i = start; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return sql.slice(start, i + 1);
  }
  return sql.slice(start);
}

/** A subquery's text with its own aliases numbered in order, so renamed copies compare equal. */
function canonicalSubquery(text: string): string {
  let out = text.replace(/\s+/g, ' ');
  tableAliases(out).forEach((a, i) => {
    out = out.replace(new RegExp(whole(a.alias), 'g'), `$${i}`);
  });
  return out;
}

/**
 * Expressions written more than once in one statement: a parenthesized subquery (compared
 * with its own aliases renamed, as a copy written under other aliases is still a copy),
 * or an aggregate call other than `count(*)`.
 */
export function findRepeatedExpressions(sql: string): string[] {
  const seen = new Map<string, number>();
  const note = (text: string): void => {
    seen.set(text, (seen.get(text) ?? 0) + 1);
  };
  for (const m of sql.matchAll(/\(\s*SELECT\b/g)) note(canonicalSubquery(balanced(sql, m.index)));
  for (const m of sql.matchAll(/\b(?:count|sum|avg|min|max)\(/g)) {
    const call = sql.slice(m.index, m.index + m[0].length - 1) + balanced(sql, m.index + m[0].length - 1);
    if (call !== 'count(*)') note(call.replace(/\s+/g, ' '));
  }
  return [...seen].filter(([, n]) => n > 1).map(([text]) => text);
}

/** A link table's end columns and the tables they reference: table → column → table. */
export type LinkReferences = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * Aliases of tables read only through their id, at least once where an inner join of a
 * link table meets it on a column that references that very table:
 * `FROM orders o JOIN employee_processes ep ON ep.cust_order_id = o.id` where `o` is read
 * nowhere else. The link row's foreign key already names an order, so the join adds
 * nothing. (A join to a narrower table, a subclass's, filters the link rows and stays.)
 */
export function findNeedlessJoins(sql: string, links: LinkReferences): string[] {
  const lines = sql.split('\n');
  const found: string[] = [];
  const bare = (name: string): string => name.replaceAll('"', '');
  for (const { alias, table } of tableAliases(sql)) {
    if (table === undefined || links.has(bare(table))) continue;
    const references = [...sql.matchAll(new RegExp(String.raw`(?<![\w".])${escapeRegExp(alias)}\.([\w"]+)`, 'g'))];
    if (references.length === 0 || references.some((r) => r[1] !== 'id')) continue;
    const viaLink = lines.some((line) => {
      const join = /^\s*JOIN\s+([\w"]+)\s+AS\s+([\w"]+)\s+ON\s+(.*)$/.exec(line);
      const columns = join ? links.get(bare(join[1] as string)) : undefined;
      if (!join || !columns) return false;
      return [...columns].some(
        ([column, referenced]) =>
          referenced === bare(table) &&
          new RegExp(String.raw`${whole(`${join[2]}.${column}`)} = ${whole(`${alias}.id`)}`).test(join[3] as string),
      );
    });
    if (viaLink) found.push(alias);
  }
  return found;
}
