import type { Attribute, AttributeType, OpaqueColumn } from '../er-model/er-model.ts';
import type { VariantSpec } from './variant-spec.ts';

/**
 * What a column means in terms of the E/R model. Shredding fills columns by role, read-back
 * reconstructs the instance by role, and the query compiler unfolds conceptual relations
 * through the same roles: one description of each variant, three uses.
 */
export type ColumnRole =
  /** The surrogate key, the same object id in every variant. */
  | { readonly kind: 'id' }
  /** The discriminator of a disjoint hierarchy: the deepest class of the row's group. */
  | { readonly kind: 'type' }
  /** Membership of an overlapping hierarchy's class (one boolean per class). */
  | { readonly kind: 'flag'; readonly entity: string }
  /** A single-valued attribute declared on `entity`. */
  | { readonly kind: 'attribute'; readonly entity: string; readonly attribute: string }
  /** A multi-valued attribute stored in the owner's row as an array or a JSONB array. */
  | {
      readonly kind: 'nested';
      readonly entity: string;
      readonly attribute: string;
      readonly encoding: 'array' | 'jsonb';
    }
  /** A many-to-one or one-to-one relationship stored as the partner's id on the `from` row. */
  | { readonly kind: 'reference'; readonly relationship: string }
  /** An attribute of a relationship, next to its reference or in its table. */
  | { readonly kind: 'relationshipAttribute'; readonly relationship: string; readonly attribute: string }
  /** Child table of a multi-valued attribute: the owning object's id. */
  | { readonly kind: 'owner' }
  /** Child table of a multi-valued attribute: one element of the set. */
  | { readonly kind: 'element' }
  /** Relationship table: the id of one end. */
  | { readonly kind: 'end'; readonly end: 'from' | 'to' };

export type ColumnRoleKind = ColumnRole['kind'];

export interface Column {
  readonly name: string;
  readonly role: ColumnRole;
  /** PostgreSQL type as written in DDL: `integer`, `numeric(10,2)`, `text[]`, `jsonb`. */
  readonly sqlType: string;
  /** The conceptual type of the value (or of each element), for encoding and decoding. */
  readonly valueType: AttributeType | { readonly kind: 'id' };
  readonly nullable: boolean;
}

/** What the rows of a table are. */
export type TableRole =
  /**
   * One group of a hierarchy (or a standalone entity). `classes` are the group's classes,
   * top first. Nested mode: a row per instance that is-a the top class. Concrete mode: a row
   * per instance whose most specific class is in the group, inherited attributes included.
   */
  | {
      readonly kind: 'entity';
      readonly root: string;
      readonly mode: 'nested' | 'concrete';
      readonly classes: readonly string[];
      /** Discriminator values of the classes that can appear in the type column. */
      readonly typeValues: Readonly<Record<string, string>>;
    }
  /** Concrete mode with a registry: one row (id, most specific class) per instance. */
  | { readonly kind: 'registry'; readonly root: string; readonly typeValues: Readonly<Record<string, string>> }
  /** Child table of a multi-valued attribute. */
  | { readonly kind: 'multiValued'; readonly entity: string; readonly attribute: string }
  /** A relationship stored in a table of its own. */
  | { readonly kind: 'relationship'; readonly relationship: string };

export interface ForeignKey {
  readonly columns: readonly string[];
  readonly table: string;
  readonly references: readonly string[];
}

export interface Table {
  readonly name: string;
  readonly role: TableRole;
  readonly columns: readonly Column[];
  readonly primaryKey: readonly string[];
  readonly uniques: readonly (readonly string[])[];
  readonly foreignKeys: readonly ForeignKey[];
  /** Boolean SQL expressions over the table's own columns (already quoted). */
  readonly checks: readonly string[];
  /** Column lists to index (join columns not already led by a key). */
  readonly indexes: readonly (readonly string[])[];
  /**
   * The `native` variant's columns that hold no fact of the model: created with the table
   * (filled by their default or expression), never written, read or asked about.
   */
  readonly opaque?: readonly OpaqueColumn[];
}

/** An enum type the `native` variant creates before its tables. */
export interface EnumType {
  readonly name: string;
  readonly values: readonly string[];
}

/** A variant made concrete for one domain: its tables, in creation order. */
export interface RelationalSchema {
  readonly domain: string;
  readonly variant: VariantSpec;
  readonly tables: readonly Table[];
  /** Enum types to create first (the `native` variant only). */
  readonly enumTypes?: readonly EnumType[];
}

export type { Attribute };
