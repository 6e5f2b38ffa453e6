/**
 * The fixture files of the compiler's rules, `test/fixtures/compile-rules/<rule>.sql`, as
 * sqlglot keeps its optimizer fixtures: one entry per case, each a conceptual query (the
 * input both sides compile from), the variant its texts are printed for, and two
 * statements, the SQL before the rule and after it:
 *
 * ```sql
 * -- title: a CASE that always takes its first arm is that arm's value
 * -- domain: retail
 * -- variant: full_cti
 * -- query: {"kind":"select",…}
 * SELECT CASE WHEN TRUE THEN 'Product' … END AS product_type …;
 * SELECT 'Product' AS product_type …;
 * ```
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Query } from '../../generator/query/conceptual-query.ts';

export interface RuleFixture {
  readonly title: string;
  readonly domain: string;
  readonly variant: string;
  readonly query: Query;
  readonly before: string;
  readonly after: string;
}

const HEADER = /^-- (title|domain|variant|query): (.*)$/u;

/** Reads a fixture file; a malformed entry names the file and line. */
export function readRuleFixtures(path: string): RuleFixture[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: RuleFixture[] = [];
  let header: Record<string, string> = {};
  let body: string[] = [];
  let at = 0;
  const flush = (): void => {
    if (Object.keys(header).length === 0) return;
    const statements = body
      .join('\n')
      .split(/;\n/u)
      .map((s) => s.trim())
      .filter((s) => s !== '');
    for (const key of ['title', 'domain', 'variant', 'query'])
      if (!(key in header)) throw new Error(`${path}:${at}: entry without "-- ${key}:"`);
    if (statements.length !== 2)
      throw new Error(
        `${path}:${at}: "${header['title']}" needs two statements (before and after the rule), found ${statements.length}`,
      );
    out.push({
      title: header['title']!,
      domain: header['domain']!,
      variant: header['variant']!,
      query: JSON.parse(header['query']!) as Query,
      before: statements[0]!.replace(/;$/u, ''),
      after: statements[1]!.replace(/;$/u, ''),
    });
  };
  lines.forEach((line, i) => {
    const m = HEADER.exec(line);
    if (m && m[1] === 'title') {
      flush();
      header = {};
      body = [];
      at = i + 1;
    }
    if (m) header[m[1]!] = m[2]!;
    else if (Object.keys(header).length > 0 && !(body.length === 0 && line.trim() === '')) body.push(line);
  });
  flush();
  return out;
}

/** Writes fixtures back, each with the texts given (how EQUISQL_UPDATE_FIXTURES=1 refreshes them). */
export function writeRuleFixtures(path: string, fixtures: readonly RuleFixture[]): void {
  const entries = fixtures.map((f) =>
    [
      `-- title: ${f.title}`,
      `-- domain: ${f.domain}`,
      `-- variant: ${f.variant}`,
      `-- query: ${JSON.stringify(f.query)}`,
      `${f.before};`,
      `${f.after};`,
    ].join('\n'),
  );
  writeFileSync(path, `${entries.join('\n\n')}\n`);
}
