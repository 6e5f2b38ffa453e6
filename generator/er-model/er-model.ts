/**
 * The E/R model: the source of truth every other stage reads. Plain, readonly, JSON-shaped
 * data, so the TypeScript DSL (`defineDomain`) and the JSON form are the same thing and one
 * validator checks both.
 */

/** The scalar types an attribute can have. */
export type AttributeType =
  | { readonly kind: 'integer' }
  | { readonly kind: 'bigint' }
  | { readonly kind: 'numeric'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'text' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'date' }
  | { readonly kind: 'timestamptz' }
  /** A time of day without a zone (a source's `timestamp without time zone`): read as UTC, printed without an offset. */
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'enum'; readonly values: readonly string[] };

export type AttributeTypeKind = AttributeType['kind'];

/** Words the question writer uses for an element. */
export interface NounLexicon {
  /** "creator", "live stream" */
  readonly singular: string;
  /** "creators", "live streams" */
  readonly plural: string;
}

/** An entity's words: its noun, and the one people use in a question when the model's is a class name. */
export interface EntityLexicon extends NounLexicon {
  /**
   * What a user calls the objects when the model's noun is a modeller's ("video" for a
   * "content item", "viewer" for a "consumer"); the natural question style uses it, the
   * other styles keep the model's noun. It covers the subclasses as the model's noun does.
   */
  readonly everyday?: NounLexicon;
}

/**
 * Hints for the instance generator. None of these change the model's meaning; they shape
 * the data so questions over it have interesting answers.
 */
export interface ValueHints {
  /** A faker method path, e.g. `internet.email`, `person.firstName`, `lorem.sentence`. */
  readonly faker?: string;
  /** Inclusive bounds for numbers; for dates and timestamps, ISO dates. */
  readonly min?: number | string;
  readonly max?: number | string;
  /** Share of NULLs for an optional single-valued attribute (default 0.1). */
  readonly nullRate?: number;
  /** Set sizes for a multi-valued attribute, inclusive (default 0..4). */
  readonly setSize?: readonly [number, number];
  /** A fixed pool of values to draw from (text attributes), giving realistic ties. */
  readonly pool?: readonly string[];
  /** Values must differ across instances (names of tags, usernames). */
  readonly unique?: boolean;
  /**
   * Other sources for the objects of a subclass, by its name: a device's name from the
   * device names, an app's from the app names, so the data reads like what it is. An object
   * takes the first subclass listed that it belongs to; the rest keep `faker` or `pool`.
   */
  readonly bySubclass?: Readonly<Record<string, SubclassValueHints>>;
}

/**
 * Where a subclass's objects draw an attribute's values from: for text, a faker method or a
 * pool; for numbers, their own bounds (an app's price is not a device's).
 */
export interface SubclassValueHints {
  readonly faker?: string;
  readonly pool?: readonly string[];
  readonly min?: number;
  readonly max?: number;
}

/**
 * What an attribute is, as an analyst reads it: what may be summed, compared, grouped by or
 * matched exactly. The filler proposes and the meaning check accepts only what fits the
 * role (a sum of additive measures, equality on categories and names, ranges on measures
 * and dates). Where a model gives none, one is inferred (`attributeRoles`).
 */
export type AttributeRole =
  /** Picks out one object: a model number, an ISBN, a badge number. Matched exactly, never aggregated. */
  | { readonly kind: 'identifier' }
  /** How people refer to an object: a name, a title, a username. Shown beside measures, matched exactly or by LIKE. */
  | { readonly kind: 'name' }
  /** One of few values: a platform, a department, a tier. Grouped by, matched by = and IN. */
  | { readonly kind: 'category' }
  /**
   * A quantity in a unit: a price, a duration, a file size, an age. Arithmetic only with
   * measures of the same `unit`; summed only when `additive` (prices add up across orders,
   * ages do not).
   */
  | {
      readonly kind: 'measure';
      /** What the number counts in ("USD", "second", "MB", "year"): only equal units add or subtract. */
      readonly unit: string;
      readonly additive: boolean;
      /**
       * Count attributes of the same object (by name) whose product with this measure means
       * something: price × quantity is a stock value.
       */
      readonly multipliedBy?: readonly string[];
    }
  /** How many of something an object has: a quantity in stock, loyalty points. Additive. */
  | { readonly kind: 'count' }
  /** A rating on a fixed scale: averaged and compared, never summed. */
  | { readonly kind: 'score' }
  /** A calendar day. */
  | { readonly kind: 'date' }
  /** An instant (a timestamp). */
  | { readonly kind: 'time' }
  /** An email address, a phone number, a URL: shown and matched exactly, never computed on. */
  | { readonly kind: 'contact' }
  /** Free text (a bio, a review, a description): shown or searched with LIKE, never matched exactly. */
  | { readonly kind: 'description' }
  /** A yes/no. */
  | { readonly kind: 'flag' };

export type AttributeRoleKind = AttributeRole['kind'];

/** Every role kind, in the order the docs list them. */
export const ATTRIBUTE_ROLE_KINDS: readonly AttributeRoleKind[] = [
  'identifier',
  'name',
  'category',
  'measure',
  'count',
  'score',
  'date',
  'time',
  'contact',
  'description',
  'flag',
];

/**
 * An attribute's words: its noun, and for the question writer the adjectives a comparison
 * or a flag is said with and the word of its unit.
 */
export interface AttributeLexicon extends NounLexicon {
  /**
   * Of a measure, count, score, date or time: what a high and a low value make an object
   * ("expensive"/"cheap", "old"/"young", "recent"/"early", "long"/"short"), in the base form.
   */
  readonly high?: string;
  readonly low?: string;
  /** Of a flag: what an object is when it holds ("verified", "live"). */
  readonly adjective?: string;
  /** Of a measure: its unit as a word in a question ("seconds", "MB", "dollars"). */
  readonly unit?: string;
  /**
   * Of a date or time: the participle of the event it dates, said after the objects'
   * noun ("created" for a creation time: "videos created before 2024"; "hired", "placed").
   */
  readonly event?: string;
}

export interface Attribute {
  readonly name: string;
  readonly type: AttributeType;
  /** May be NULL (single-valued) or empty (multi-valued). Default false. */
  readonly optional?: boolean;
  /** A set of values rather than one value. Default false. */
  readonly multiValued?: boolean;
  /** What the attribute is; inferred from its type and hints when absent. */
  readonly role?: AttributeRole;
  readonly lexicon?: AttributeLexicon;
  readonly hints?: ValueHints;
  /**
   * Kept and stored, never asked about: bookkeeping such as `last_update`. The filler
   * proposes no question that reads it. Default false.
   */
  readonly neverAsked?: boolean;
  /** Where the attribute lives in the database it was imported from (the `native` variant). */
  readonly storage?: AttributeStorage;
}

/**
 * Physical names, read by `equisql import`: where an element of the model lives in the
 * user's own database. Only the `native` variant reads them; it builds exactly that schema.
 * Every other variant ignores them, so a model with them shreds as before.
 */
export interface AttributeStorage {
  /** The column (of a multi-valued attribute in a child table: the column of the values). */
  readonly column: string;
  /**
   * The column's type as PostgreSQL spells it: `smallint`, `character(20)`,
   * `timestamp without time zone`, `mpaa_rating` (an enum type named after its values),
   * `text[]`. Of an enum attribute, a type other than text, varchar or char is an enum
   * type the `native` variant creates.
   */
  readonly sqlType: string;
  /** Of a set kept as an array or JSON column: the column allows NULL (read as the empty set). */
  readonly nullable?: boolean;
  /** A multi-valued attribute kept in a table of its own: the table. */
  readonly table?: string;
  /** …and its column holding the owner's key. */
  readonly ownerColumn?: string;
}

/** A column the model holds no fact of (a `tsvector`, a `bytea`, a generated column): in the DDL, never in a question, never generated. */
export interface OpaqueColumn {
  readonly column: string;
  readonly sqlType: string;
  readonly nullable: boolean;
  /** The default expression, as the source prints it. */
  readonly default?: string;
  /** A generated column's expression (stored). */
  readonly generated?: string;
}

/** Where an entity's rows live: its table and key column. */
export interface EntityStorage {
  readonly table: string;
  /** The key column: the model's object id. */
  readonly key: string;
  readonly keyType: string;
  /** The table's primary key, when it is more than the key column (a partitioned table's holds its partition key too). */
  readonly primaryKey?: readonly string[];
  /** Unique keys beyond the primary key, composite ones too, as column lists. */
  readonly uniques?: readonly (readonly string[])[];
  /** Columns kept in the DDL that no attribute speaks of. */
  readonly opaque?: readonly OpaqueColumn[];
  /** The column that tells the kinds of the classes kept in this table, and each kind's value. */
  readonly discriminator?: EntityDiscriminator;
  /** The boolean column that marks each class of this table's overlapping kinds: `{ "Author": "is_author" }`. */
  readonly flags?: Readonly<Record<string, string>>;
  /**
   * A concrete table: it holds only the objects whose most specific class is this one, with
   * the inherited attributes copied down into it. A hierarchy stored so has a table for each
   * class with objects of its own; a class without any (an abstract one) has no table.
   */
  readonly concrete?: boolean;
}

/**
 * A concrete hierarchy's registry table, as the source has it: a row per object of the
 * hierarchy, its key (which every concrete table's key references) and, in its discriminator,
 * the kind of the table that holds the object.
 */
export interface EntityRegistry {
  readonly table: string;
  readonly key: string;
  readonly keyType: string;
  readonly discriminator: EntityDiscriminator;
  /** The kinds its CHECK lists, in the source's order (the native variant writes them so). */
  readonly check?: readonly string[];
}

/**
 * A discriminator column as the source has it: `kind text` holding `'ebook'` on the rows of
 * Ebook. `values` names, for every class of the table that can have direct instances, the
 * value its rows hold; `labels` is the enum type's list in order when the column is one.
 */
export interface EntityDiscriminator {
  readonly column: string;
  readonly sqlType: string;
  readonly values: Readonly<Record<string, string>>;
  readonly labels?: readonly string[];
}

/**
 * Where a relationship lives: a column on the `from` end's table holding the partner's key,
 * or (with `table`) a table of its own whose `fromColumn` and `column` hold the two ends.
 */
export interface RelationshipStorage {
  /** The column holding the `to` end's key. */
  readonly column: string;
  readonly sqlType: string;
  readonly table?: string;
  readonly fromColumn?: string;
  readonly fromSqlType?: string;
  readonly uniques?: readonly (readonly string[])[];
  readonly opaque?: readonly OpaqueColumn[];
}

/** How the subclasses of an entity partition its instances. */
export interface Specialization {
  /** Disjoint: an instance belongs to at most one direct subclass. Overlapping otherwise. */
  readonly disjoint: boolean;
  /** Total: every instance belongs to some direct subclass. Partial otherwise. */
  readonly total: boolean;
}

/** Instance counts at each scale preset, for a root entity. */
export interface ScaleCounts {
  readonly tiny: number;
  readonly small: number;
  readonly paper: number;
  readonly large: number;
}

export interface Entity {
  readonly name: string;
  /** The superclass, for a subclass in a hierarchy. */
  readonly parent?: string;
  /** Required on an entity that has subclasses. */
  readonly specialization?: Specialization;
  readonly attributes: readonly Attribute[];
  readonly lexicon: EntityLexicon;
  /** Root entities: instance counts per scale preset. */
  readonly counts?: ScaleCounts;
  /** Subclasses: the share of the parent's instances that belong to this class. */
  readonly fraction?: number;
  /** Its table in the database it was imported from (the `native` variant). */
  readonly storage?: EntityStorage;
  /** Of a hierarchy's root kept in concrete tables: the registry table of every object, where the source has one. */
  readonly registry?: EntityRegistry;
}

export type Cardinality = 'one-to-one' | 'many-to-one' | 'many-to-many';
export type Participation = 'total' | 'partial';

/** How many partners a `from` instance has, for the instance generator. */
export interface DegreeHints {
  /** Mean number of partners of a `from` instance that has any (many-to-many). */
  readonly mean?: number;
  /** Upper bound on partners per `from` instance. */
  readonly max?: number;
  /** Zipf exponent for how `to` instances are chosen: 0 uniform, 1 heavy skew. */
  readonly skew?: number;
  /** Share of `from` instances with no partner, where participation allows it. */
  readonly noneRate?: number;
}

export interface RelationshipLexicon {
  /** "produced by": from → to ("content produced by a creator"). */
  readonly forward: string;
  /** "produced": to → from ("creators who produced content"). */
  readonly reverse: string;
}

export interface Relationship {
  readonly name: string;
  readonly from: string;
  readonly to: string;
  /** Read from → to: many-to-one means each `from` has at most one `to`. */
  readonly cardinality: Cardinality;
  readonly participation?: { readonly from?: Participation; readonly to?: Participation };
  readonly attributes?: readonly Attribute[];
  /** The name of the `to` end as a role ("producer", "host"), used for column names. */
  readonly role?: string;
  readonly lexicon: RelationshipLexicon;
  readonly degree?: DegreeHints;
  /** Its columns (or table) in the database it was imported from (the `native` variant). */
  readonly storage?: RelationshipStorage;
}

export interface Domain {
  readonly name: string;
  readonly description?: string;
  readonly entities: readonly Entity[];
  readonly relationships: readonly Relationship[];
}

/**
 * A domain as a JSON file (`er.json`, a model given to `--dataset`): a Domain, optionally
 * naming its JSON Schema so an editor completes and checks it. `$schema` carries no meaning
 * and is dropped on reading.
 */
export type DomainDocument = Domain & { readonly $schema?: string };
