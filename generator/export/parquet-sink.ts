/**
 * Parquet output through parquetjs-lite: flat, typed columns (the conceptual query and the
 * chain of thought travel as JSON text, so no reader needs nested-type support), GZIP pages
 * (read by DuckDB, pandas/pyarrow, Spark and `datasets`), rows in row groups.
 */
import { renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import parquet from 'parquetjs-lite';
import { RECORD_COLUMNS, type ExportRecord } from '../records/export-record.ts';
import { trainingMessages } from './finetune-format.ts';

/** Parquet physical/logical type of each column; the JSON Schema and the card say the same. */
export const PARQUET_TYPES: Readonly<
  Record<
    (typeof RECORD_COLUMNS)[number],
    { readonly type: 'UTF8' | 'INT32' | 'INT64' | 'BOOLEAN'; readonly optional?: boolean }
  >
> = {
  id: { type: 'UTF8' },
  group_id: { type: 'UTF8' },
  question_id: { type: 'UTF8' },
  dataset: { type: 'UTF8' },
  db_id: { type: 'UTF8' },
  domain: { type: 'UTF8' },
  variant: { type: 'UTF8' },
  schema_id: { type: 'UTF8' },
  question: { type: 'UTF8' },
  style: { type: 'UTF8' },
  paraphrase: { type: 'INT32' },
  writer: { type: 'UTF8' },
  sql: { type: 'UTF8' },
  canonical_sql: { type: 'UTF8', optional: true },
  skeleton: { type: 'UTF8' },
  structure_hash: { type: 'UTF8' },
  result_hash: { type: 'UTF8' },
  row_count: { type: 'INT64' },
  ordered: { type: 'BOOLEAN' },
  difficulty: { type: 'UTF8' },
  split: { type: 'UTF8' },
  query: { type: 'UTF8' },
  evidence: { type: 'UTF8' },
  cot: { type: 'UTF8', optional: true },
};

/** Rows per row group: small enough to stream, large enough to compress well. */
export const ROW_GROUP_SIZE = 10_000;

/**
 * Writes `rows` to `path` as Parquet, whole or not at all (a temporary file renamed over it).
 *
 * @example
 * await writeParquet('out/data/train-00000-of-00001.parquet', rows);
 */
export async function writeParquet(path: string, rows: readonly ExportRecord[]): Promise<void> {
  const schema = new parquet.ParquetSchema(
    Object.fromEntries(
      RECORD_COLUMNS.map((c) => [
        c,
        { type: PARQUET_TYPES[c].type, optional: PARQUET_TYPES[c].optional ?? false, compression: 'GZIP' },
      ]),
    ),
  );
  await writeRows(path, schema, rows, (r) => {
    const row: Record<string, unknown> = {};
    // parquetjs-lite writes a null for an absent key of an optional column.
    for (const c of RECORD_COLUMNS) if (r[c] !== null) row[c] = r[c];
    return row;
  });
}

/** Writes one Parquet row per item, whole or not at all (a temporary file renamed over `path`). */
export async function writeRows<T>(
  path: string,
  schema: InstanceType<typeof parquet.ParquetSchema>,
  items: readonly T[],
  row: (item: T) => Record<string, unknown>,
): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    const writer = await parquet.ParquetWriter.openFile(schema, temp, { rowGroupSize: ROW_GROUP_SIZE });
    for (const item of items) await writer.appendRow(row(item));
    await writer.close();
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** A list of chat messages as Parquet: a repeated group of (role, content), read as list<struct>. */
const MESSAGES = {
  repeated: true,
  fields: { role: { type: 'UTF8', compression: 'GZIP' }, content: { type: 'UTF8', compression: 'GZIP' } },
} as const;

/**
 * The chat or prompt–completion lines of `rows` as Parquet (the same turns as the JSON Lines
 * files): the record's `id`, then `messages`, or `prompt` and `completion`, each a list of
 * {role, content}.
 *
 * @example
 * await writeMessagesParquet('out/finetune/train.prompt.parquet', 'prompt', rows, (r) => ddl.get(r.schema_id));
 */
export async function writeMessagesParquet(
  path: string,
  kind: 'chat' | 'prompt',
  rows: readonly ExportRecord[],
  ddlOf: (r: ExportRecord) => string,
): Promise<void> {
  const id = { type: 'UTF8' } as const;
  const schema = new parquet.ParquetSchema(
    kind === 'chat' ? { id, messages: MESSAGES } : { id, prompt: MESSAGES, completion: MESSAGES },
  );
  await writeRows(path, schema, rows, (r) => {
    const prompt = trainingMessages(ddlOf(r), r);
    const completion = [{ role: 'assistant', content: r.sql }];
    return kind === 'chat' ? { id: r.id, messages: [...prompt, ...completion] } : { id: r.id, prompt, completion };
  });
}
