import type { SqlExpr, SqlLike, SqlQuery } from '../../sql-tree.ts';
import { literal } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';
import { DialectError } from '../../../common/errors.ts';

/**
 * Pattern matching with PostgreSQL's case rules. SQLite's LIKE ignores the case of ASCII
 * letters, so PostgreSQL's case-sensitive LIKE is SQLite's GLOB (`%` → `*`, `_` → `?`, and
 * GLOB's own `*`, `?`, `[` taken literally as `[*]`, `[?]`, `[[]`), and ILIKE is LIKE.
 *
 * ILIKE is LIKE only while the pattern's letters are ASCII: SQLite folds no other case, so
 * `ILIKE '%é%'` (which PostgreSQL matches against `É`) is refused. A backslash escape in an
 * ILIKE pattern is refused too (SQLite's LIKE has none without an ESCAPE clause).
 *
 * @example
 * // p.title LIKE 'Pro%'        →  p.title GLOB 'Pro*'
 * // p.title NOT ILIKE '%ultra%' →  p.title NOT LIKE '%ultra%'
 */
export function likeAsGlob(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, { expr: (e) => (e.kind === 'like' && !e.glob ? rewriteLike(e) : e) });
}

function patternText(e: SqlLike): string {
  if (e.pattern.kind !== 'literal' || typeof e.pattern.value !== 'string')
    throw new DialectError('sqlite', 'LIKE with a computed pattern', 'only a literal pattern can be translated');
  return e.pattern.value;
}

function rewriteLike(e: SqlLike): SqlExpr {
  const pattern = patternText(e);
  if (e.caseInsensitive) {
    if (
      /[^\x00-\x7f]/u.test(pattern) &&
      [...pattern].some((ch) => ch.codePointAt(0)! > 0x7f && ch.toLowerCase() !== ch.toUpperCase())
    ) {
      throw new DialectError(
        'sqlite',
        'ILIKE on a non-ASCII letter',
        `SQLite's LIKE folds only ASCII case: ${JSON.stringify(pattern)}`,
      );
    }
    if (pattern.includes('\\'))
      throw new DialectError(
        'sqlite',
        'ILIKE with an escape',
        `no ESCAPE clause in the tree: ${JSON.stringify(pattern)}`,
      );
    return { ...e, caseInsensitive: false };
  }
  return { ...e, pattern: literal(globPattern(pattern)), glob: true };
}

/** PostgreSQL's LIKE pattern (backslash escapes) as a GLOB pattern with the same matches. */
export function globPattern(like: string): string {
  let out = '';
  for (let i = 0; i < like.length; i++) {
    const ch = like[i] as string;
    if (ch === '\\' && i + 1 < like.length) {
      out += globLiteral(like[++i] as string);
    } else if (ch === '%') out += '*';
    else if (ch === '_') out += '?';
    else out += globLiteral(ch);
  }
  return out;
}

const globLiteral = (ch: string): string => (ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch);
