import Sqlite from 'better-sqlite3';
import { LoadError } from '../common/errors.ts';
import type { Row } from '../database/database.ts';
import {
  type Catalog,
  type CatalogCheck,
  type CatalogOther,
  type CatalogTable,
  type CatalogType,
  parseInList,
} from './catalog.ts';
import {
  profileDiscriminators,
  profileConcreteTables,
  profileReferencedFlags,
  profileReferencedValues,
  profileTables,
} from './column-profile.ts';
import type { SourceRead } from './read-source.ts';

interface TableInfo {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly dflt_value: string | null;
  readonly pk: number;
  readonly hidden?: number;
}
interface ForeignKeyInfo {
  readonly id: number;
  readonly seq: number;
  readonly table: string;
  readonly from: string;
  readonly to: string | null;
}
interface IndexInfo {
  readonly name: string;
  readonly unique: number;
  readonly origin: string;
  readonly partial: number;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Reads a SQLite file's catalog and profiles through better-sqlite3, opened read-only on a
 * file that must exist (and with `query_only` on besides), so the file's bytes are never
 * changed. better-sqlite3 is native and synchronous, and opens a file read-only in place; a
 * WASM build would read the file into memory first.
 */
export async function readSqliteSource(
  file: string,
  options: { readonly tables?: readonly string[] } = {},
): Promise<SourceRead> {
  let db: Sqlite.Database;
  try {
    db = new Sqlite(file, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    throw new LoadError(`${file}: cannot read as a SQLite database: ${(error as Error).message}`, { cause: error });
  }
  try {
    const catalog = readSqliteCatalog(db, file, options.tables);
    const run = async (sql: string): Promise<Row[]> => db.prepare(sql).all() as Row[];
    const profile = await profileTables(run, catalog.tables, quote, 'sqlite');
    const discriminators = await profileDiscriminators(run, catalog.tables, profile, quote);
    const referenced = await profileReferencedValues(run, catalog.tables, discriminators, quote);
    const referencedFlags = await profileReferencedFlags(run, catalog.tables, quote);
    const concrete = await profileConcreteTables(run, catalog.tables, quote);
    return { catalog, profile, discriminators, referenced, referencedFlags, concrete };
  } catch (error) {
    if (error instanceof LoadError) throw error;
    throw new LoadError(`${file}: ${(error as Error).message}`, { cause: error });
  } finally {
    db.close();
  }
}

function readSqliteCatalog(db: Sqlite.Database, file: string, only: readonly string[] | undefined): Catalog {
  const master = db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
  const wanted = only ? new Set(only) : undefined;
  if (wanted) {
    const known = new Set(master.filter((m) => m.type === 'table').map((m) => m.name));
    const missing = [...wanted].filter((t) => !known.has(t));
    if (missing.length > 0) throw new LoadError(`${file}: no table ${missing.map((m) => `"${m}"`).join(', ')}`);
  }
  // The tables a virtual table keeps its own data in (FTS5's doc_data, R*Tree's box_node).
  const shadow = new Set(
    (
      db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'").all() as {
        name: string;
      }[]
    ).map((t) => t.name),
  );
  const others: CatalogOther[] = [];
  const tables: CatalogTable[] = [];
  for (const m of master) {
    if (m.type === 'view') others.push({ kind: 'view', name: m.name, note: 'a view: derived rows, not stored facts' });
    else if (m.type === 'trigger')
      others.push({
        kind: 'trigger',
        name: `${m.tbl_name}.${m.name}`,
        note: 'a trigger: behaviour on write, not data',
      });
    else if (m.type === 'table' && (!wanted || wanted.has(m.name))) {
      if (/^CREATE\s+VIRTUAL\s+TABLE/iu.test(m.sql ?? '')) {
        others.push({ kind: 'table', name: m.name, note: 'a virtual table: its rows come from a module' });
        continue;
      }
      if (shadow.has(m.name)) {
        others.push({ kind: 'table', name: m.name, note: 'a shadow table: where a virtual table keeps its data' });
        continue;
      }
      tables.push(readTable(db, m.name, m.sql ?? ''));
    }
  }
  return { engine: 'sqlite', source: file, schema: 'main', tables, enums: [], others };
}

function readTable(db: Sqlite.Database, name: string, sql: string): CatalogTable {
  const info = db.prepare(`SELECT * FROM pragma_table_xinfo(?)`).all(name) as TableInfo[];
  const columns = info.map((c) => {
    const generated = c.hidden === 2 || c.hidden === 3;
    return {
      name: c.name,
      sqlType: c.type,
      type: sqliteType(c.type),
      // A column of an INTEGER PRIMARY KEY is the rowid: never NULL, though not declared so.
      nullable:
        c.notnull === 0 && !(c.pk > 0 && info.filter((x) => x.pk > 0).length === 1 && /^INTEGER$/iu.test(c.type)),
      ...(c.dflt_value !== null ? { default: c.dflt_value } : {}),
      ...(generated ? { generated: 'a generated column' } : {}),
    };
  });
  const pk = info
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  const fkRows = db.prepare(`SELECT * FROM pragma_foreign_key_list(?)`).all(name) as ForeignKeyInfo[];
  const byId = new Map<number, ForeignKeyInfo[]>();
  for (const f of fkRows) byId.set(f.id, [...(byId.get(f.id) ?? []), f]);
  const foreignKeys = [...byId.values()].map((parts) => {
    parts.sort((a, b) => a.seq - b.seq);
    const target = (parts[0] as ForeignKeyInfo).table;
    // A reference without columns is to the target's primary key.
    const targetKey = (db.prepare(`SELECT * FROM pragma_table_info(?)`).all(target) as TableInfo[])
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    return {
      columns: parts.map((p) => p.from),
      table: target,
      references: parts.map((p, i) => p.to ?? targetKey[i] ?? ''),
    };
  });
  const uniques: string[][] = [];
  for (const ix of db.prepare(`SELECT * FROM pragma_index_list(?)`).all(name) as IndexInfo[]) {
    if (ix.unique !== 1 || ix.origin === 'pk' || ix.partial === 1) continue;
    const cols = (
      db.prepare(`SELECT * FROM pragma_index_info(?)`).all(ix.name) as { seqno: number; name: string | null }[]
    ).sort((a, b) => a.seqno - b.seqno);
    if (cols.every((c) => c.name !== null)) uniques.push(cols.map((c) => c.name as string));
  }
  const [count] = db.prepare(`SELECT count(*) AS n FROM ${quote(name)}`).all() as { n: number }[];
  return {
    name,
    columns,
    ...(pk.length > 0 ? { primaryKey: pk } : {}),
    uniques,
    foreignKeys,
    checks: sqliteChecks(sql),
    inherits: [],
    partitions: [],
    rowCount: Number(count?.n ?? 0),
  };
}

/** The CHECK constraints written in a CREATE TABLE statement, with balanced parentheses. */
export function sqliteChecks(sql: string): CatalogCheck[] {
  const out: CatalogCheck[] = [];
  const re = /\bCHECK\s*\(/giu;
  for (let m = re.exec(sql); m; m = re.exec(sql)) {
    let depth = 1;
    let at = m.index + m[0].length;
    let inString = false;
    for (; at < sql.length && depth > 0; at++) {
      const ch = sql[at];
      if (ch === "'") inString = !inString;
      else if (!inString && ch === '(') depth++;
      else if (!inString && ch === ')') depth--;
    }
    const expression = sql.slice(m.index + m[0].length, at - 1).trim();
    const inList = parseInList(expression.replace(/\[([^\]]*)\]/gu, '"$1"'));
    out.push(inList ? { expression, inList } : { expression });
  }
  return out;
}

/**
 * The neutral type of a SQLite declared type (by SQLite's affinity rules, refined by the
 * usual spellings).
 *
 * @example sqliteType('NVARCHAR(120)') // { kind: 'text', length: 120 }
 * @example sqliteType('NUMERIC(10,2)') // { kind: 'numeric', precision: 10, scale: 2 }
 */
export function sqliteType(declared: string): CatalogType {
  const t = declared.trim().toUpperCase();
  const size = /\((\d+)(?:\s*,\s*(\d+))?\)/u.exec(t);
  const n = size ? Number(size[1]) : undefined;
  if (/^(BIGINT|INT8|UNSIGNED BIG INT)/u.test(t)) return { kind: 'bigint' };
  if (/^(SMALLINT|TINYINT|INT2|MEDIUMINT)/u.test(t)) return { kind: 'smallint' };
  if (/INT/u.test(t)) return { kind: 'integer' };
  if (/^(N?CHAR|CHARACTER|NATIVE CHARACTER)\b/u.test(t) && !/VARYING/u.test(t) && n !== undefined)
    return { kind: 'char', length: n };
  if (/CHAR|CLOB|TEXT/u.test(t)) return n === undefined ? { kind: 'text' } : { kind: 'text', length: n };
  if (/^(BOOL|BOOLEAN)$/u.test(t)) return { kind: 'boolean' };
  if (/^DATE$/u.test(t)) return { kind: 'date' };
  if (/^(DATETIME|TIMESTAMP)/u.test(t)) return { kind: 'timestamp' };
  if (/^UUID$/u.test(t)) return { kind: 'uuid' };
  if (/^JSONB?$/u.test(t)) return { kind: 'json' };
  if (/^(NUMERIC|DECIMAL)/u.test(t))
    return size ? { kind: 'numeric', precision: Number(size[1]), scale: Number(size[2] ?? 0) } : { kind: 'numeric' };
  if (/REAL|FLOA|DOUB/u.test(t)) return { kind: 'double' };
  if (t === '') return { kind: 'text' };
  return { kind: 'opaque', typeName: declared };
}
