/**
 * A conceptual instance: entity objects and relationship links of one E/R model, before any
 * relational choice. Every variant's rows are shredded from it, and every variant's
 * database must read back into it exactly.
 *
 * Values are held in one canonical form per type, the form PostgreSQL prints them in with
 * `DateStyle = ISO` and `TimeZone = UTC`, so comparing read-back values is comparing strings:
 * integer and bigint as numbers; numeric as a string with exactly its scale (`"12.50"`);
 * text and enum as strings; boolean as booleans; date as `YYYY-MM-DD`; timestamptz as
 * `YYYY-MM-DD HH:MM:SS+00`.
 */
export type Scalar = string | number | boolean;

/** A single value, NULL, or a set (sorted, without duplicates). */
export type Value = Scalar | null | readonly Scalar[];

export interface EntityObject {
  /** The surrogate key, unique within the hierarchy and the same in every variant. */
  readonly id: number;
  /** The most specific classes (one for disjoint hierarchies), sorted. */
  readonly classes: readonly string[];
  /** Every attribute along the object's classes' chains, by attribute name. */
  readonly values: Readonly<Record<string, Value>>;
}

export interface Link {
  readonly from: number;
  readonly to: number;
  /** Relationship attributes, if the relationship has any. */
  readonly values?: Readonly<Record<string, Value>>;
}

export type ScalePreset = 'tiny' | 'small' | 'paper' | 'large';
export const SCALE_PRESETS: readonly ScalePreset[] = ['tiny', 'small', 'paper', 'large'];

/** `edge` raises NULL, empty-set, no-partner, tie and odd-text rates to stress SQL. */
export type InstanceProfile = 'default' | 'edge';

export interface InstanceOptions {
  readonly seed: string | number;
  readonly scale: ScalePreset;
  /** Instance counts for root entities, overriding the preset. */
  readonly counts?: Readonly<Record<string, number>>;
  readonly profile?: InstanceProfile;
}

export interface ConceptualInstance {
  readonly domain: string;
  /** Objects of each root entity's hierarchy, by root name, sorted by id. */
  readonly objects: Readonly<Record<string, readonly EntityObject[]>>;
  /** Links of each relationship, sorted by (from, to). */
  readonly links: Readonly<Record<string, readonly Link[]>>;
}
