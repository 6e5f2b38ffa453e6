/**
 * The SQL in a model's reply (or a predictions file's `sql`), read the way a person reading
 * the reply would find it. Models that reason first, or wrap the answer in prose, are scored
 * on their final SQL, not refused for the words around it:
 *
 * 1. Reasoning is dropped: every `<think>…</think>` block (also `<thinking>`, `<reasoning>`);
 *    before a closing tag that has no opening one (a chat template that opened the block in
 *    the prompt), everything; after an opening tag never closed (a reply cut off while
 *    thinking), everything.
 * 2. Fenced blocks: the last block tagged `sql` (or `postgresql`, `postgres`, `psql`,
 *    `pgsql`, `sqlite`, `sqlite3`) or untagged wins, so a draft in the reasoning loses to the final answer. A
 *    last fence never closed (a reply cut off in the answer) counts up to the end.
 * 3. Without a fence: a reply that starts as SQL (a statement keyword, `(`, a comment) is
 *    taken whole. Otherwise a labelled answer (`SQL:`, `Query:`, `Answer:`, `Final answer:`,
 *    the last such label) is taken after its label; else the text from the first line that
 *    starts with SELECT or WITH (after a "Reasoning:" preface, say).
 * 4. Prose after the SQL, past a line ending in `;` and a blank line, is dropped.
 *
 * Nothing found is null: the row is scored `missing` (the model gave no SQL), not `refused`.
 * The text kept is still untrusted: it runs only through the guarded executor.
 */

const THINK_TAGS = 'think|thinking|reasoning';
const SQL_TAGS = new Set(['', 'sql', 'postgresql', 'postgres', 'psql', 'pgsql', 'sqlite', 'sqlite3']);
/** Words a SQL statement (of any kind) starts with: such a reply is SQL, even if the guard will refuse it. */
const STATEMENT =
  /^(?:select|with|values|table|insert|update|delete|merge|create|drop|alter|truncate|grant|revoke|copy|set|reset|show|explain|begin|start|commit|rollback|end|do|call|lock|vacuum|analyze|prepare|execute|declare|listen|notify|comment|security|refresh|discard|load|savepoint|release|abort|checkpoint|cluster|reindex|import|attach|detach|pragma|replace)\b|^\(|^--|^\/\*/iu;
const QUERY_START = /^[ \t]*(?:select|with)\b/imu;
const LABEL =
  /^[ \t]*(?:\*\*)?(?:final answer|final sql|sql query|sql|query|answer)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*/gimu;

/** The reply without its reasoning blocks (rule 1). */
export function dropReasoning(reply: string): string {
  let text = reply.replace(new RegExp(`<(${THINK_TAGS})\\b[^>]*>[\\s\\S]*?</\\1\\s*>`, 'giu'), '');
  const closing = [...text.matchAll(new RegExp(`</(?:${THINK_TAGS})\\s*>`, 'giu'))].at(-1);
  if (closing?.index !== undefined) text = text.slice(closing.index + closing[0].length);
  const opening = new RegExp(`<(?:${THINK_TAGS})\\b[^>]*>`, 'iu').exec(text);
  if (opening) text = text.slice(0, opening.index);
  return text;
}

/** The last fenced SQL block's text (rule 2), or undefined when the text has none. */
function lastFencedSql(text: string): string | undefined {
  let found: string | undefined;
  const fence = /^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)(?:^[ \t]*```[ \t]*$|(?![\s\S]))/gmu;
  for (const m of text.matchAll(fence)) {
    if (SQL_TAGS.has((m[1] ?? '').toLowerCase()) && (m[2] ?? '').trim() !== '') found = m[2];
  }
  return found;
}

/** The SQL of a reply without fences (rule 3), or undefined when it holds none. */
function unfencedSql(text: string): string | undefined {
  const trimmed = text.trim();
  if (STATEMENT.test(trimmed)) return trimmed;
  const label = [...trimmed.matchAll(LABEL)].at(-1);
  if (label?.index !== undefined) {
    const after = trimmed.slice(label.index + label[0].length).trim();
    if (STATEMENT.test(after)) return after;
  }
  const start = QUERY_START.exec(trimmed);
  return start ? trimmed.slice(start.index).trim() : undefined;
}

/** Prose after the SQL dropped (rule 4). */
function dropTrailingProse(sql: string): string {
  const end = /;[ \t]*\r?\n[ \t]*\r?\n/u.exec(sql);
  if (!end) return sql;
  const rest = sql.slice(end.index + end[0].length).trim();
  return STATEMENT.test(rest) ? sql : sql.slice(0, end.index + 1);
}

/**
 * The SQL of a reply, trimmed, or null when it holds none.
 *
 * @example
 * replySql('```sql\nSELECT 1;\n```'); // 'SELECT 1;'
 * replySql('<think>maybe ```sql\nSELECT 2\n```</think>\n```sql\nSELECT 1\n```'); // 'SELECT 1'
 * replySql('Reasoning: count them.\nSELECT count(*) FROM t'); // 'SELECT count(*) FROM t'
 * replySql('I cannot answer this.'); // null
 */
export function replySql(reply: string): string | null {
  const text = dropReasoning(reply);
  const sql = lastFencedSql(text) ?? unfencedSql(text.replace(/^[ \t]*```[^\n]*$/gmu, ''));
  if (sql === undefined) return null;
  const kept = dropTrailingProse(sql).trim();
  return kept === '' ? null : kept;
}
