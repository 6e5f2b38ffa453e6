/**
 * The rules of meaning: what an analyst asks of data whose attributes have roles. The names
 * are shared by the meaning check (`checkMeaning`, which lists violations of a finished
 * query) and the content filler (whose own rules, in generate/fill/rules/, propose only what
 * these allow); each is a rejection reason of its own in the manifest.
 */
export const MEANING_RULES = [
  /** Arithmetic only within one unit, or a measure times a count the model declares (price × quantity). */
  'unit-arithmetic',
  /** Two columns compared only when they hold the same kind of thing (one unit, one attribute of text). */
  'comparable-columns',
  /** SUM only of additive measures and counts. */
  'additive-sum',
  /** AVG, MIN and MAX only of measures, counts, scores and dates; COUNT(DISTINCT) only of what names or sorts objects. */
  'aggregate-argument',
  /** DISTINCT inside an aggregate only for COUNT. */
  'distinct-aggregate',
  /** GROUP BY categories, flags, date parts, or an entity shown by its name. */
  'group-key',
  /** Equality and IN on categories, flags, names, identifiers, contacts, dates, counts and scores; never on free text, measures or instants. */
  'exact-match',
  /** Ranges on measures, counts, scores, dates and times. */
  'range-on-quantity',
  /** LIKE on names and free text. */
  'like-on-text',
  /** Text functions only where a person wants them: a name's initials or case, a text's length. */
  'text-function',
  /** A listed row shows what it is: a name, an identifier or a contact of some object, beside any measure. */
  'shown-by-name',
  /** A relationship joined twice the same way pairs an object with itself. */
  'self-pairing',
  /** No bound that another bound on the same value implies. */
  'implied-bound',
  /** No output that is the same in every row, and none that only restates a value. */
  'constant-output',
  /** No grouping whose every group is one object, when the query aggregates over it. */
  'single-object-groups',
  /** No SUM or AVG over rows a join multiplies for nothing: a total counted once per unrelated partner. */
  'fan-out',
  /** No count or total over two unrelated lists at once (tags × quality options). */
  'cross-product',
  /** No list whose rows repeat once per object of a FROM entity it neither shows nor filters on. */
  'repeated-rows',
  /** Numbers a person types (one or two significant digits, or a whole number below 100) and dates on a calendar day. */
  'typed-value',
  /** LIMIT from 1, 3, 5, 10, 20, 50, 100. */
  'round-limit',
  /** No alphabetical order cut by a LIMIT. */
  'alphabetical-cut',
] as const;

export type MeaningRule = (typeof MEANING_RULES)[number];

/** One violation: the rule, and where and what in one line. */
export interface MeaningViolation {
  readonly rule: MeaningRule;
  readonly detail: string;
}
