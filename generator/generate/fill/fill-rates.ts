/**
 * Every probability the content filler draws with, in one table. Each is the chance that a
 * step takes its less common form; the step that draws it is named beside it. Changing one
 * changes which queries a seed gives, never whether they are verified.
 *
 * | rate | step | the chance that… |
 * |---|---|---|
 * | ownNameBase | joins | a list's or a grouping's FROM entity is drawn among those that hold their own name |
 * | subtypeJoin | joins | a join reaches a subclass of the entity at the other end rather than the entity |
 * | elementEdgeWeight | joins | (a weight, not a chance) an element join counts this much of a relationship join of the same variation |
 * | notOverNegated | predicates | `x NOT LIKE p` (NOT IN, NOT BETWEEN, IS NOT NULL) is written `NOT (x LIKE p)` |
 * | notOverUnequal | predicates | `x <> v` is written `NOT (x = v)` |
 * | inListForEquality | predicates | an equality slot becomes `x IN (a, b)` |
 * | dateWindow | predicates | a lower bound on a date becomes "in the N months before the latest date" |
 * | likePrefixCut | predicates | a LIKE word longer than five letters is cut to its first four |
 * | likePrefixOnly | predicates | a LIKE pattern is `word%` rather than `%word%` |
 * | membership / isA / isNull | predicates | an equality slot becomes set membership, a subtype test, IS NULL (cumulative rolls) |
 * | existsForm | subqueries | an `id IN (…)` slot is written as the correlated EXISTS that says the same |
 * | analyticAggregate | aggregates | a column aggregate becomes conditional aggregation or an aggregate of distinct values |
 * | numericOverTemporal | aggregates | a free aggregate takes a number rather than a date when both exist |
 * | twoColumnArithmetic | aggregates | an aggregate of arithmetic combines two attributes rather than one and a number |
 * | conditionalOverDistinct | aggregates | the analytic aggregate is conditional rather than of distinct values |
 * | filterClause | aggregates | a conditional count is `count(*) FILTER (…)` rather than `sum(CASE …)` |
 * | conditionalCount | aggregates | a conditional aggregate is a count rather than a percentage |
 * | maxMinusMin | aggregates | arithmetic on two aggregates is a range (MAX − MIN) |
 * | derivedOutput | outputs | a plain output is a set's size, the set, or the object's class |
 * | setSize / setArray | outputs | which derived output (cumulative rolls) |
 * | analyticColumn | outputs | a plain output becomes its year, length, case, band, … |
 * | columnArithmetic | outputs | row arithmetic combines two attributes rather than one and a number |
 * | groupByBase | grouping | the grouped objects are the FROM entity's rather than a joined one's |
 * | yearCategory | grouping | a date's year is offered as a category to group by (always when there is no other) |
 * | kindCategory | grouping | an object's subclass is offered as a category to group by |
 * | groupByObject | grouping | groups are objects rather than categories, when both are possible |
 * | countPartnersLeft | grouping | counting partners per object keeps those with none (a LEFT join) |
 * | nullsOtherEnd | ordering | an ORDER BY key puts NULLs at the end opposite PostgreSQL's default |
 * | plainRootForSet | set operations | an entity with no subclasses is a candidate hierarchy for a set operation |
 * | unionAll | set operations | a UNION keeps its repeats (Spider and BIRD mini-dev write none; a quarter keeps the construct in the data) |
 * | topPerGroup / windowOutput | windows | a plain query becomes top-N per group, or gains a window output (shares of one roll) |
 * | windowDescending | windows | a window orders its rows descending |
 */
export const FILL_RATES = {
  ownNameBase: 0.6,
  subtypeJoin: 0.25,
  elementEdgeWeight: 0.5,
  notOverNegated: 0.35,
  notOverUnequal: 0.25,
  inListForEquality: 0.1,
  dateWindow: 0.4,
  likePrefixCut: 0.2,
  likePrefixOnly: 0.3,
  membership: 0.12,
  isA: 0.22,
  isNull: 0.28,
  existsForm: 0.3,
  analyticAggregate: 0.2,
  numericOverTemporal: 0.85,
  twoColumnArithmetic: 0.7,
  conditionalOverDistinct: 0.7,
  filterClause: 0.6,
  conditionalCount: 0.5,
  maxMinusMin: 0.6,
  derivedOutput: 0.25,
  setSize: 0.4,
  setArray: 0.6,
  analyticColumn: 0.15,
  columnArithmetic: 0.6,
  groupByBase: 0.7,
  yearCategory: 0.25,
  kindCategory: 0.15,
  groupByObject: 0.6,
  countPartnersLeft: 0.5,
  nullsOtherEnd: 0.08,
  plainRootForSet: 0.3,
  unionAll: 0.25,
  topPerGroup: 0.12,
  windowOutput: 0.08,
  windowDescending: 0.7,
} as const;

/**
 * Where a threshold or bound falls in the sorted values of a column, away from both ends.
 * Thresholds are rounded as typed, so the quantiles are many: few would give few thresholds
 * per column, and groups that differ in nothing else.
 */
export const VALUE_QUANTILES: readonly number[] = [0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8];
/** Where a HAVING threshold falls among the distinct values of the group aggregate. */
export const HAVING_QUANTILES: readonly number[] = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
