import { beforeAll, describe, expect, it } from 'vitest';
import { loadPgParser, parsePostgres, statementKinds } from '../../generator/sql/pg-parser.ts';
import { SqlParseError } from '../../generator/common/errors.ts';

beforeAll(() => loadPgParser());

describe('PostgreSQL parser adapter', () => {
  it('ends a -- comment at a carriage return, as the server does', () => {
    // Read by a lexer that ends comments at \n only, this is one SELECT.
    const text = "SELECT --\r'a\\' AS x; COMMIT; SELECT 2 --' AS z";
    expect(statementKinds(parsePostgres(text))).toEqual(['SelectStmt', 'TransactionStmt', 'SelectStmt']);
  });

  it('reads ONLY as a table qualifier, not a table aliased by the next word', () => {
    const [stmt] = parsePostgres('SELECT 1 FROM ONLY pg_authid').stmts;
    const from = (stmt!.stmt['SelectStmt'] as { fromClause: { RangeVar: { relname: string; inh?: boolean } }[] })
      .fromClause;
    expect(from[0]!.RangeVar.relname).toBe('pg_authid');
    expect(from[0]!.RangeVar.inh).toBeFalsy();
  });

  it('refuses text the server refuses, naming where', () => {
    expect(() => parsePostgres('SELECT 1 FROM\nWHERE')).toThrow(SqlParseError);
    try {
      parsePostgres('SELECT 1 FROM\nWHERE');
    } catch (error) {
      expect((error as SqlParseError).line).toBe(2);
    }
  });
});
