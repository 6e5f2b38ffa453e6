/**
 * The compiler's simplification rules, in the order they run (as sqlglot's optimizer runs
 * its rules): each a pure function in a file of its own, each with input/expected fixtures
 * in `test/fixtures/compile-rules/<name>.sql` that the tests execute on every variant.
 *
 * A `query` rule rewrites the conceptual query before lowering (what it needs to know, the
 * entity a row stands for, exists only there); a `tree` rule rewrites the SQL tree after it.
 */
import type { ErIndex } from '../../er-model/er-index.ts';
import type { Query } from '../../query/conceptual-query.ts';
import type { SqlQuery } from '../sql-tree.ts';
import { treeFeatures, type TreeFeature } from '../sql-tree-walk.ts';
import { dropImpliedPredicates } from './drop-implied-predicates.ts';
import { dropUnusedLeftJoins } from './drop-unused-left-joins.ts';
import { foldConstantCase } from './fold-constant-case.ts';
import { keepHaving } from './keep-having.ts';
import { nameComputedColumns } from './name-computed-columns.ts';
import { pruneClassArms } from './prune-class-arms.ts';
import { negateComparisons } from './negate-comparisons.ts';
import { tidyAliases } from './tidy-aliases.ts';
import { tidyBrackets } from './tidy-brackets.ts';
import { unwrapCoalesce } from './unwrap-coalesce.ts';

export type CompileRule =
  | { readonly name: string; readonly stage: 'query'; readonly apply: (query: Query, index: ErIndex) => Query }
  | {
      readonly name: string;
      readonly stage: 'tree';
      readonly apply: (tree: SqlQuery) => SqlQuery;
      /** What the rule rewrites: a tree with none of these features is left to the next rule. */
      readonly acts: readonly TreeFeature[];
    };

export const COMPILE_RULES: readonly CompileRule[] = [
  { name: 'name-computed-columns', stage: 'query', apply: nameComputedColumns },
  { name: 'prune-class-arms', stage: 'query', apply: pruneClassArms },
  // Constants first: the arms they drop may be all that read a join.
  { name: 'fold-constant-case', stage: 'tree', apply: foldConstantCase, acts: ['constantCase'] },
  { name: 'drop-unused-left-joins', stage: 'tree', apply: dropUnusedLeftJoins, acts: ['uniqueLeftJoin'] },
  { name: 'keep-having', stage: 'tree', apply: keepHaving, acts: ['filteredDerived'] },
  { name: 'negate-comparisons', stage: 'tree', apply: negateComparisons, acts: ['not'] },
  { name: 'unwrap-coalesce', stage: 'tree', apply: unwrapCoalesce, acts: ['singleCoalesce'] },
  // Flattened, a clause's conditions are all in view for the implications.
  { name: 'tidy-brackets', stage: 'tree', apply: tidyBrackets, acts: ['brackets'] },
  { name: 'drop-implied-predicates', stage: 'tree', apply: dropImpliedPredicates, acts: ['conditionList'] },
  { name: 'tidy-aliases', stage: 'tree', apply: tidyAliases, acts: ['selfAlias'] },
];

/**
 * Runs the tree rules of `rules` in order. A rule runs only on a tree with a feature it acts
 * on; the features are read again after a rule that changed the tree.
 */
export function applyTreeRules(tree: SqlQuery, rules: readonly CompileRule[]): SqlQuery {
  let features = treeFeatures(tree);
  for (const rule of rules) {
    if (rule.stage !== 'tree' || !rule.acts.some((f) => features[f])) continue;
    const next = rule.apply(tree);
    if (next !== tree) {
      tree = next;
      features = treeFeatures(tree);
    }
  }
  return tree;
}

/** The rules up to and including `name` (all of them for undefined); a typo is an error. */
export function rulesThrough(name: string | undefined, { inclusive = true } = {}): readonly CompileRule[] {
  if (name === undefined) return COMPILE_RULES;
  const at = COMPILE_RULES.findIndex((r) => r.name === name);
  if (at < 0)
    throw new Error(`no compile rule named "${name}" (rules: ${COMPILE_RULES.map((r) => r.name).join(', ')})`);
  return COMPILE_RULES.slice(0, inclusive ? at + 1 : at);
}
