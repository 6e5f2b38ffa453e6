/**
 * PostgreSQL's own reading of untrusted SQL, one of the guard's two readers
 * (`query-guard.ts`): the server's grammar (`libpg-query`, behind `sql/pg-parser.ts`) parses
 * the text, and this walk holds the tree to what a query may be.
 *
 * The walk is an allow-list of node types, field by field: a node or a field it does not
 * know is refused, so a construct added to a later grammar (or one overlooked here) is
 * refused rather than let through. Among what it refuses by name: more than one statement,
 * anything but a SELECT, `SELECT … INTO`, `FOR UPDATE`/`FOR SHARE`, `WITH RECURSIVE` and a
 * writing WITH, `TABLESAMPLE`, a table that is not one of the variant's own (with or without
 * `ONLY`, qualified or not; a CTE's name counts where it is in scope), a function off the
 * list (also when called as `t.f`), `localtimestamp`, `current_user` and the other SQL value
 * functions, a type that is not an answer's (`ALLOWED_TYPES`: reg* and aclitem read the catalog), system
 * columns (`ctid`, `xmin`, …), parameters, operators and types from another schema, a
 * literal that reads the clock (`'now'`).
 */
import { parsePostgres } from '../sql/pg-parser.ts';
import { SqlParseError } from '../common/errors.ts';
import { readsClock, READ_ONLY_FUNCTIONS, refuse } from './allowed-sql.ts';

/** What a text is checked against: the variant's schema and the tables in it. */
export interface GuardScope {
  /** The variant schema the query runs in (its search_path). */
  readonly pgSchema: string;
  /** The names of the relations in that schema, exactly as the catalog spells them. */
  readonly tables: ReadonlySet<string>;
  /**
   * The names of the types in that schema (its enums and domains, its tables' row types, and
   * their array types), which a query may name unqualified; without it, only ALLOWED_TYPES.
   */
  readonly types?: ReadonlySet<string>;
}

/**
 * The built-in types a query may name (in a cast or a typed literal), each also as the
 * element of an array type (`int4[]`, `_int4`): the types of answers. The guard decides by
 * type, not by a pattern of names: any other type of the catalog is refused, among them the
 * reg* types and aclitem, whose input reads the catalogs (`'{pg_authid}'::regclass[]`
 * enumerates them), xml (its parser reads documents), money (its text follows the session's
 * locale), the system's own (oid, xid, tid, pg_lsn, pg_snapshot, …), pseudo-types and the
 * catalogs' row types. The variant's own types (`GuardScope.types`) are allowed too.
 */
export const ALLOWED_TYPES: ReadonlySet<string> = new Set([
  'bool',
  'int2',
  'int4',
  'int8',
  'numeric',
  'float4',
  'float8',
  'text',
  'varchar',
  'bpchar',
  'char',
  'name',
  'bytea',
  'uuid',
  'json',
  'jsonb',
  'jsonpath',
  'bit',
  'varbit',
  'date',
  'time',
  'timetz',
  'timestamp',
  'timestamptz',
  'interval',
  'int4range',
  'int8range',
  'numrange',
  'daterange',
  'tsrange',
  'tstzrange',
  'int4multirange',
  'int8multirange',
  'nummultirange',
  'datemultirange',
  'tsmultirange',
  'tstzmultirange',
  'inet',
  'cidr',
  'macaddr',
  'macaddr8',
  'point',
  'line',
  'lseg',
  'box',
  'path',
  'polygon',
  'circle',
  'tsvector',
  'tsquery',
]);

/** Columns every table has that tell about storage and transactions, not data: answers that change between runs. */
const SYSTEM_COLUMNS: ReadonlySet<string> = new Set(['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid']);

/**
 * Functions of one argument of any row type, which PostgreSQL also calls in attribute
 * notation (`t.pg_column_size` is `pg_column_size(t)`), and which are not on the list; a
 * test holds this to the server's catalog.
 */
export const ATTRIBUTE_CALLS: ReadonlySet<string> = new Set([
  'any_out',
  'anycompatible_out',
  'anycompatiblenonarray_out',
  'anyelement_out',
  'anynonarray_out',
  'hash_record',
  'num_nonnulls',
  'num_nulls',
  'pg_collation_for',
  'pg_column_compression',
  'pg_column_size',
  'pg_typeof',
  'quote_literal',
  'quote_nullable',
  'record_out',
  'record_send',
  'pg_column_toast_chunk_id',
  'pg_restore_attribute_stats',
  'pg_restore_relation_stats',
]);

type Fields = Readonly<Record<string, unknown>>;

/** The walk's state: the scope, and the CTE names visible where it is. */
interface Walk {
  readonly scope: GuardScope;
  readonly ctes: ReadonlySet<string>;
}

/** A node's type and fields (`{ SelectStmt: {...} }`), or undefined for anything else. */
function unwrap(value: unknown): [string, Fields] | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const type = keys[0] as string;
  const fields = (value as Record<string, unknown>)[type];
  if (!/^[A-Z]/u.test(type) || fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  return [type, fields as Fields];
}

const strings = (list: unknown): string[] =>
  Array.isArray(list)
    ? list.map((item) =>
        unwrap(item)?.[0] === 'String' ? String((unwrap(item)?.[1] as Fields)['sval'] ?? '') : '\u0000',
      )
    : [];

/** A dotted name for messages. */
const dotted = (names: readonly string[]): string => names.join('.');

/**
 * How each node type is walked: the fields it may have, each `leaf` (a scalar: a name, a
 * flag, a location), `node` (a node or a list of nodes), or a handler. A field not listed
 * makes the node refused.
 */
type FieldRule = 'leaf' | 'node' | ((value: unknown, w: Walk) => void);
type NodeRule = { readonly fields: Readonly<Record<string, FieldRule>>; readonly check?: (f: Fields, w: Walk) => void };

const LEAF = 'leaf' as const;
const NODE = 'node' as const;

function walkValue(value: unknown, w: Walk): void {
  if (value === null || value === undefined || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) walkValue(item, w);
    return;
  }
  // `DISTINCT` without ON is a list holding one empty node.
  if (Object.keys(value).length === 0) return;
  const node = unwrap(value);
  if (!node)
    throw refuse(
      w.scope.pgSchema,
      `the parser's tree holds something the guard does not know (${JSON.stringify(value).slice(0, 60)})`,
    );
  walkNode(node[0], node[1], w);
}

/** Walks one node; a SELECT (wherever it sits: a subquery, a CTE, a set operation's side) by `walkSelect`, for its WITH. */
function walkNode(type: string, fields: Fields, w: Walk): void {
  if (type === 'SelectStmt') walkSelect(fields, w);
  else walkFields(type, fields, w);
}

function walkFields(type: string, fields: Fields, w: Walk): void {
  const rule = RULES[type];
  if (!rule) throw refuse(w.scope.pgSchema, `${describeNode(type, fields)} is not allowed in a query`);
  rule.check?.(fields, w);
  for (const [key, value] of Object.entries(fields)) {
    const field = rule.fields[key];
    if (key === 'location') continue;
    if (field === undefined) throw refuse(w.scope.pgSchema, `${type}.${key} is not allowed in a query`);
    if (field === LEAF) {
      if (value !== null && typeof value === 'object')
        throw refuse(w.scope.pgSchema, `${type}.${key} is not a plain value`);
    } else if (field === NODE) {
      walkValue(value, w);
    } else {
      field(value, w);
    }
  }
}

/** A readable name for a refused node: the SQL it stands for where that is clearer. */
function describeNode(type: string, fields: Fields): string {
  switch (type) {
    case 'SQLValueFunction':
      return `${String(fields['op'] ?? '').replace(/^SVFOP_/u, '')} (an SQL value function: the clock or the session)`;
    case 'ParamRef':
      return `parameter $${String(fields['number'] ?? '')}`;
    case 'RangeTableSample':
      return 'TABLESAMPLE';
    case 'InsertStmt':
    case 'UpdateStmt':
    case 'DeleteStmt':
    case 'MergeStmt':
      return type.replace(/Stmt$/u, '').toUpperCase();
    default:
      return type.replace(/Stmt$/u, ' statement');
  }
}

/** An operator name: bare, or qualified by pg_catalog only (`OPERATOR(pg_catalog.+)`). */
function checkOperator(names: readonly string[], w: Walk): void {
  if (names.length > 1 && !(names.length === 2 && names[0] === 'pg_catalog')) {
    throw refuse(w.scope.pgSchema, `operator ${dotted(names)}: only built-in operators may be used`);
  }
}

/** A SELECT walked in its scope: its WITH first (each CTE sees those before it), then the rest with every CTE visible. */
function walkSelect(value: unknown, w: Walk): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw refuse(w.scope.pgSchema, 'a set operation without its queries');
  const fields = value as Fields;
  let inner = w;
  const withClause = fields['withClause'] as Fields | undefined;
  if (withClause !== undefined) {
    if (withClause['recursive'])
      throw refuse(w.scope.pgSchema, 'WITH RECURSIVE (a query here is a WITH of plain SELECTs)');
    const visible = new Set(w.ctes);
    for (const item of (withClause['ctes'] as unknown[] | undefined) ?? []) {
      const cte = unwrap(item);
      if (!cte || cte[0] !== 'CommonTableExpr')
        throw refuse(w.scope.pgSchema, 'a WITH list item that is not a common table expression');
      walkFields('CommonTableExpr', cte[1], { scope: w.scope, ctes: visible });
      visible.add(String(cte[1]['ctename']));
    }
    inner = { scope: w.scope, ctes: visible };
  }
  walkFields('SelectStmt', fields, inner);
}

function checkRelation(f: Fields, w: Walk): void {
  const { pgSchema, tables } = w.scope;
  const name = String(f['relname'] ?? '');
  const schema = f['schemaname'] === undefined ? undefined : String(f['schemaname']);
  const written = dotted([
    ...(f['catalogname'] === undefined ? [] : [String(f['catalogname'])]),
    ...(schema === undefined ? [] : [schema]),
    name,
  ]);
  const only = f['inh'] === true ? '' : 'ONLY ';
  if (f['catalogname'] !== undefined)
    throw refuse(pgSchema, `table ${written}: a query reads only its variant's tables`);
  if (schema === undefined && w.ctes.has(name)) return;
  if (schema !== undefined && schema !== pgSchema)
    throw refuse(pgSchema, `table ${only}${written}: a query reads only its variant's tables`);
  if (!tables.has(name)) {
    const catalog = /^(pg_|information_schema$)/u.test(name) || schema === 'pg_catalog';
    throw refuse(
      pgSchema,
      `table ${only}${written}: a query reads only its variant's tables${catalog ? ', not the system catalogs' : ` (${pgSchema} has no table ${name})`}`,
    );
  }
}

function checkCall(f: Fields, w: Walk): void {
  const names = strings(f['funcname']);
  const name = names[names.length - 1] ?? '';
  const schema = names.length > 1 ? dotted(names.slice(0, -1)) : undefined;
  if (schema !== undefined && schema !== 'pg_catalog')
    throw refuse(w.scope.pgSchema, `function ${dotted(names)}: only built-in functions may be called`);
  if (!READ_ONLY_FUNCTIONS.has(name))
    throw refuse(
      w.scope.pgSchema,
      `function ${dotted(names)} is not on the list of read-only functions a query may call`,
    );
  // age(x) is age(current_date, x): the clock.
  if (name === 'age' && (Array.isArray(f['args']) ? f['args'].length : 0) < 2)
    throw refuse(
      w.scope.pgSchema,
      'age() of one argument reads the clock: an answer that changes between runs cannot be verified',
    );
  if (name === 'format') checkFormat(f, w);
}

/** The widest a `format` field may pad: wider than any answer, far short of a width that pads for minutes. */
export const MAX_FORMAT_WIDTH = 10_000;

/**
 * `format` pads a field to its width without looking at the statement timeout
 * (`format('%1000000000s', …)` ran for minutes and GBs): its format must be a literal whose
 * widths are at most MAX_FORMAT_WIDTH, and not `*` (a width taken from an argument).
 */
function checkFormat(f: Fields, w: Walk): void {
  const first = Array.isArray(f['args']) ? unwrap(f['args'][0]) : undefined;
  const sval = first?.[0] === 'A_Const' ? (first[1]['sval'] as Fields | undefined)?.['sval'] : undefined;
  if (typeof sval !== 'string')
    throw refuse(w.scope.pgSchema, 'format() takes its format as a string literal here (its widths are checked)');
  for (const spec of sval.matchAll(/%(?:\d+\$)?([-]*)(\*|\d+)?/gu)) {
    const width = spec[2];
    if (width === '*') throw refuse(w.scope.pgSchema, 'format(): a width taken from an argument (*) is not allowed');
    if (width !== undefined && Number(width) > MAX_FORMAT_WIDTH)
      throw refuse(
        w.scope.pgSchema,
        `format(): width ${width.length > 12 ? `${width.slice(0, 12)}…` : width} is more than ${MAX_FORMAT_WIDTH.toLocaleString('en-US')}`,
      );
  }
}

function checkType(f: Fields, w: Walk): void {
  const names = strings(f['names']);
  const name = names[names.length - 1] ?? '';
  if (f['pct_type']) throw refuse(w.scope.pgSchema, `type ${dotted(names)}%TYPE is not allowed in a query`);
  if (names.length > 1 && names[0] !== 'pg_catalog' && !(names.length === 2 && names[0] === w.scope.pgSchema)) {
    throw refuse(w.scope.pgSchema, `type ${dotted(names)}: only built-in types and the variant's own may be named`);
  }
  // The variant's own, qualified: its tables' row types, its enums and domains.
  if (names.length === 2 && names[0] === w.scope.pgSchema) return;
  // An unqualified name is the variant's type first (search_path), then the catalog's.
  if (names.length === 1 && w.scope.types?.has(name)) return;
  const element = name.startsWith('_') ? name.slice(1) : name;
  if (ALLOWED_TYPES.has(element)) return;
  const why = /^reg|^aclitem$/u.test(element)
    ? ': its input reads the system catalogs'
    : element === 'xml'
      ? ': its parser reads documents'
      : '';
  throw refuse(
    w.scope.pgSchema,
    `type ${dotted(names)}${why}; a query may name only the types of answers (see docs/safe-queries.md)`,
  );
}

function checkColumn(f: Fields, w: Walk): void {
  const names = strings(f['fields']);
  for (const name of names) {
    if (SYSTEM_COLUMNS.has(name))
      throw refuse(
        w.scope.pgSchema,
        `system column ${name}: it tells about storage, not data, and changes between runs`,
      );
  }
  const last = names[names.length - 1] ?? '';
  if (names.length > 1 && ATTRIBUTE_CALLS.has(last))
    throw refuse(
      w.scope.pgSchema,
      `${dotted(names)} calls the function ${last}, which is not on the list of read-only functions a query may call`,
    );
}

function checkConstant(f: Fields, w: Walk): void {
  const s = f['sval'] as Fields | undefined;
  const text = s && typeof s['sval'] === 'string' ? s['sval'] : undefined;
  // Each element of an array or range literal too: '{now}'::timestamptz[], '[today,)'::daterange.
  if (text !== undefined && (readsClock(text) || text.split(/[{}()[\]",]/u).some(readsClock)))
    throw refuse(
      w.scope.pgSchema,
      `'${text}' reads the clock as a date or time: an answer that changes between runs cannot be verified`,
    );
}

/** Fields a unwrapped struct holds (A_Const's value, an Alias, a TypeName): checked like a node of that type. */
const as =
  (type: string) =>
  (value: unknown, w: Walk): void => {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw refuse(w.scope.pgSchema, `${type} is malformed in the parser's tree`);
    walkFields(type, value as Fields, w);
  };

const refused =
  (what: string) =>
  (_value: unknown, w: Walk): void => {
    throw refuse(w.scope.pgSchema, what);
  };

const operatorField = (value: unknown, w: Walk): void => checkOperator(strings(value), w);

const RULES: Readonly<Record<string, NodeRule>> = {
  SelectStmt: {
    fields: {
      distinctClause: NODE,
      targetList: NODE,
      fromClause: NODE,
      whereClause: NODE,
      groupClause: NODE,
      groupDistinct: LEAF,
      havingClause: NODE,
      windowClause: NODE,
      valuesLists: NODE,
      sortClause: NODE,
      limitOffset: NODE,
      limitCount: NODE,
      limitOption: LEAF,
      op: LEAF,
      all: LEAF,
      // Walked by walkSelect before the rest, which it puts in scope.
      withClause: () => {},
      larg: walkSelect,
      rarg: walkSelect,
      intoClause: refused('SELECT … INTO (it creates a table); only one SELECT is run'),
      lockingClause: refused('a locking clause (FOR UPDATE, FOR SHARE): a query only reads'),
    },
  },
  CommonTableExpr: {
    fields: {
      ctename: LEAF,
      aliascolnames: NODE,
      ctematerialized: LEAF,
      cterecursive: LEAF,
      cterefcount: LEAF,
      ctequery: (value, w) => {
        const node = unwrap(value);
        if (!node || node[0] !== 'SelectStmt')
          throw refuse(
            w.scope.pgSchema,
            `a data-modifying WITH (${node ? describeNode(node[0], node[1]) : '?'}); only one SELECT is run`,
          );
        walkSelect(node[1], w);
      },
    },
  },
  ResTarget: { fields: { name: LEAF, val: NODE, indirection: NODE } },
  ColumnRef: { fields: { fields: NODE }, check: checkColumn },
  A_Star: { fields: {} },
  A_Const: {
    fields: {
      ival: LEAF_STRUCT(),
      fval: LEAF_STRUCT(),
      sval: LEAF_STRUCT(),
      boolval: LEAF_STRUCT(),
      bsval: LEAF_STRUCT(),
      isnull: LEAF,
    },
    check: checkConstant,
  },
  String: { fields: { sval: LEAF } },
  Integer: { fields: { ival: LEAF } },
  Float: { fields: { fval: LEAF } },
  Boolean: { fields: { boolval: LEAF } },
  BitString: { fields: { bsval: LEAF } },
  A_Expr: {
    fields: { kind: LEAF, name: operatorField, lexpr: NODE, rexpr: NODE, rexpr_list_start: LEAF, rexpr_list_end: LEAF },
  },
  BoolExpr: { fields: { boolop: LEAF, args: NODE } },
  NullTest: { fields: { arg: NODE, nulltesttype: LEAF, argisrow: LEAF } },
  BooleanTest: { fields: { arg: NODE, booltesttype: LEAF } },
  FuncCall: {
    fields: {
      funcname: LEAF_LIST(),
      args: NODE,
      agg_order: NODE,
      agg_filter: NODE,
      over: as('WindowDef'),
      agg_within_group: LEAF,
      agg_star: LEAF,
      agg_distinct: LEAF,
      func_variadic: LEAF,
      funcformat: LEAF,
    },
    check: checkCall,
  },
  WindowDef: {
    fields: {
      name: LEAF,
      refname: LEAF,
      partitionClause: NODE,
      orderClause: NODE,
      frameOptions: LEAF,
      startOffset: NODE,
      endOffset: NODE,
    },
  },
  SortBy: { fields: { node: NODE, sortby_dir: LEAF, sortby_nulls: LEAF, useOp: operatorField } },
  TypeCast: { fields: { arg: NODE, typeName: as('TypeName') } },
  TypeName: {
    fields: {
      names: LEAF_LIST(),
      typeOid: LEAF,
      setof: LEAF,
      pct_type: LEAF,
      typmods: NODE,
      typemod: LEAF,
      arrayBounds: NODE,
    },
    check: checkType,
  },
  SubLink: {
    fields: {
      subLinkType: LEAF,
      subLinkId: LEAF,
      testexpr: NODE,
      operName: operatorField,
      subselect: (value, w) => walkValue(value, w),
    },
  },
  CaseExpr: { fields: { arg: NODE, args: NODE, defresult: NODE } },
  CaseWhen: { fields: { expr: NODE, result: NODE } },
  CoalesceExpr: { fields: { args: NODE } },
  MinMaxExpr: { fields: { op: LEAF, args: NODE } },
  A_ArrayExpr: { fields: { elements: NODE } },
  A_Indirection: {
    fields: { arg: NODE, indirection: NODE },
    check: (f, w) => {
      const last = strings(f['indirection']).pop();
      if (last !== undefined && ATTRIBUTE_CALLS.has(last))
        throw refuse(
          w.scope.pgSchema,
          `(…).${last} calls the function ${last}, which is not on the list of read-only functions a query may call`,
        );
    },
  },
  A_Indices: { fields: { is_slice: LEAF, lidx: NODE, uidx: NODE } },
  RowExpr: { fields: { args: NODE, row_format: LEAF, colnames: NODE } },
  CollateClause: {
    fields: { arg: NODE, collname: LEAF_LIST() },
    check: (f, w) => {
      const names = strings(f['collname']);
      if (names.length > 1 && names[0] !== 'pg_catalog')
        throw refuse(w.scope.pgSchema, `collation ${dotted(names)}: only built-in collations may be named`);
    },
  },
  RangeVar: {
    fields: { catalogname: LEAF, schemaname: LEAF, relname: LEAF, inh: LEAF, relpersistence: LEAF, alias: as('Alias') },
    check: checkRelation,
  },
  RangeSubselect: { fields: { lateral: LEAF, subquery: NODE, alias: as('Alias') } },
  RangeFunction: {
    fields: {
      lateral: LEAF,
      ordinality: LEAF,
      is_rowsfrom: LEAF,
      functions: NODE,
      alias: as('Alias'),
      coldeflist: NODE,
    },
  },
  ColumnDef: { fields: { colname: LEAF, typeName: as('TypeName'), is_local: LEAF } },
  JoinExpr: {
    fields: {
      jointype: LEAF,
      isNatural: LEAF,
      larg: NODE,
      rarg: NODE,
      usingClause: NODE,
      join_using_alias: as('Alias'),
      quals: NODE,
      alias: as('Alias'),
      rtindex: LEAF,
    },
  },
  Alias: { fields: { aliasname: LEAF, colnames: NODE } },
  GroupingSet: { fields: { kind: LEAF, content: NODE } },
  GroupingFunc: { fields: { args: NODE } },
  List: { fields: { items: NODE } },
};

/** A_Const holds its value as an unwrapped struct (`sval: { sval: 'x' }`) of scalars. */
function LEAF_STRUCT(): FieldRule {
  return (value, w) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
    for (const v of Object.values(value))
      if (v !== null && typeof v === 'object') throw refuse(w.scope.pgSchema, 'a constant that is not a plain value');
  };
}

/** A name list (`funcname`, `names`): String nodes only. */
function LEAF_LIST(): FieldRule {
  return (value, w) => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (unwrap(item)?.[0] !== 'String') throw refuse(w.scope.pgSchema, 'a name that is not a plain name');
    }
  };
}

/** What PostgreSQL's parser read of a text the walk did not refuse. */
export interface TreeReading {
  /** Statements in the parse tree. */
  readonly statements: number;
}

/**
 * PostgreSQL's reading of `sql`, held to what a query may be (see the module comment).
 * Throws an ExecutionError naming what is refused; a text the parser cannot read is refused
 * with the parser's message and position.
 *
 * @example
 * readByPostgres('SELECT name FROM ONLY pg_authid', { pgSchema: 'v1', tables: new Set(['t']) });
 * // ExecutionError: schema v1: refused: table ONLY pg_authid: a query reads only its variant's tables, not the system catalogs
 */
export function readByPostgres(sql: string, scope: GuardScope): TreeReading {
  let tree;
  try {
    tree = parsePostgres(sql);
  } catch (error) {
    if (error instanceof SqlParseError) throw refuse(scope.pgSchema, error.message);
    throw error;
  }
  const w: Walk = { scope, ctes: new Set() };
  if (tree.stmts.length !== 1) return { statements: tree.stmts.length };
  const node = unwrap(tree.stmts[0]?.stmt);
  if (!node) throw refuse(scope.pgSchema, 'empty query');
  if (node[0] !== 'SelectStmt')
    throw refuse(scope.pgSchema, `only one SELECT is run, not ${describeNode(node[0], node[1])}`);
  walkSelect(node[1], w);
  return { statements: 1 };
}
