import { isBoolean, literal, type SqlExpr, type SqlQuery } from '../sql-tree.ts';
import { rewriteQuery } from '../sql-tree-walk.ts';

/**
 * A searched CASE whose conditions are constants reads as what it gives: an arm whose
 * condition is FALSE is never taken and goes; the first arm whose condition is TRUE is
 * always taken, so it becomes the ELSE and the arms after it go; a CASE left with no arm is
 * its ELSE (NULL when it has none).
 *
 * @example
 * // CASE WHEN TRUE THEN 'Product' WHEN a.id IS NOT NULL THEN 'Apparel' END  →  'Product'
 * // CASE WHEN FALSE THEN 'Clip' WHEN c.kind = 'v' THEN 'Video' END          →  CASE WHEN c.kind = 'v' THEN 'Video' END
 */
export function foldConstantCase(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, { expr: foldCase });
}

function foldCase(e: SqlExpr): SqlExpr {
  if (e.kind !== 'case' || e.operand !== undefined) return e;
  const whens: { when: SqlExpr; then: SqlExpr }[] = [];
  let otherwise = e.else;
  let changed = false;
  for (const w of e.whens) {
    if (isBoolean(w.when, false)) {
      changed = true;
      continue;
    }
    if (isBoolean(w.when, true)) {
      otherwise = w.then;
      changed = true;
      break;
    }
    whens.push(w);
  }
  if (!changed) return e;
  if (whens.length === 0) return otherwise ?? literal(null);
  return { kind: 'case', whens, ...(otherwise ? { else: otherwise } : {}) };
}
