/**
 * A variant is a set of shredding choices: how each hierarchy is cut into tables, how each
 * multi-valued attribute is stored, how each many-to-one relationship is stored, and how
 * tables are named. Every choice keeps the conceptual instance recoverable.
 */

/**
 * `nested`: an instance has a row in the table of every group along its is-a chain (STI,
 * CTI and any merge in between). `concrete`: an instance has exactly one row, in the table
 * of the group holding its most specific class, with inherited attributes copied down.
 */
export type InheritanceMode = 'nested' | 'concrete';

export interface HierarchyChoice {
  readonly mode: InheritanceMode;
  /**
   * Connected groups of classes, one table each; the first class of a group is its top.
   * Every class of the hierarchy is in exactly one group.
   */
  readonly groups: readonly (readonly string[])[];
  /**
   * Concrete mode only: keep a narrow root table (id and type) that every concrete table
   * and every relationship to a non-leaf class can reference.
   */
  readonly registry?: boolean;
}

export type MultiValuedEncoding = 'array' | 'jsonb' | 'table';
/** For many-to-one and one-to-one relationships; many-to-many always get a table. */
export type RelationshipEncoding = 'fk' | 'table';

export interface NamingChoice {
  /** `singular`: `live_stream`; `plural`: `live_streams`. */
  readonly tables: 'singular' | 'plural';
}

export interface VariantSpec {
  readonly name: string;
  readonly description: string;
  /** Keyed by the hierarchy's root entity; standalone entities need no entry. */
  readonly hierarchies: Readonly<Record<string, HierarchyChoice>>;
  /** Keyed by `Entity.attribute`. */
  readonly multiValued: Readonly<Record<string, MultiValuedEncoding>>;
  /** Keyed by relationship name, for many-to-one and one-to-one relationships. */
  readonly relationships: Readonly<Record<string, RelationshipEncoding>>;
  readonly naming: NamingChoice;
  /**
   * The `native` variant: every table, column and type is the one the model's `storage`
   * names (the database it was imported from); the choices above follow from where the
   * model says each element lives.
   */
  readonly native?: boolean;
  /**
   * Native only: the source's unique keys (`rental(rental_date,inventory_id,customer_id)`)
   * that a generated instance breaks, left out of this build. The model keeps no rule that
   * would hold them on generated rows; the user's own rows always keep them.
   */
  readonly uniquesLeftOut?: readonly string[];
}
