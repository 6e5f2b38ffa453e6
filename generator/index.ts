/**
 * The public API of equisql: what a user's `datasets.config.ts` or program imports as
 * `import { defineConfig, defineDomain } from 'equisql'`. Kept small on purpose; everything
 * else under `generator/` is internal and may change.
 */

// Declaring datasets and domains.
export { defineConfig, type DatasetDefinition, type EquisqlConfig } from './config/define-config.ts';
export { defineDomain, attr, noun, type AttributeOptions } from './er-model/define-domain.ts';
export { validateDomain } from './er-model/validate-domain.ts';
export { parseDomainJson, domainToJson } from './er-model/domain-json.ts';
export { attributeRoles, inferRole, type AttributeRoleEntry } from './er-model/attribute-roles.ts';
export type {
  Attribute,
  AttributeLexicon,
  AttributeRole,
  AttributeRoleKind,
  AttributeType,
  AttributeTypeKind,
  Cardinality,
  DegreeHints,
  Domain,
  Entity,
  NounLexicon,
  Participation,
  Relationship,
  RelationshipLexicon,
  ScaleCounts,
  Specialization,
  ValueHints,
} from './er-model/er-model.ts';

// The conceptual query (the IR questions are written from) and its compiler.
export type {
  AggregateFunction,
  ComparisonOperator,
  Expr,
  Join,
  JoinType,
  OrderItem,
  OutputColumn,
  Predicate,
  Query,
  ScalarLiteral,
  SelectQuery,
  SetOperator,
  SetQuery,
} from './query/conceptual-query.ts';
export { compileQuery } from './compile/compile-query.ts';
export { indexDomain, type ErIndex } from './er-model/er-index.ts';

// Instances, variants, building and verifying.
export { generateInstance, generateInstanceReport, type InstanceReport } from './instance/generate-instance.ts';
export type {
  ConceptualInstance,
  InstanceOptions,
  InstanceProfile,
  ScalePreset,
} from './instance/conceptual-instance.ts';
export {
  selectVariants,
  selectVariantsReport,
  MAX_RANDOM_VARIANTS,
  type VariantSelection,
} from './variants/select-variants.ts';
export { buildRelationalSchema } from './variants/build-schema.ts';
export type { VariantSpec } from './variants/variant-spec.ts';
export type { RelationalSchema } from './variants/relational-schema.ts';
export { buildDataset, type BuildOptions, type BuildManifest, type BuildResult } from './assemble/build-dataset.ts';
export { verifyDataset, type VariantCheck } from './assemble/verify-dataset.ts';

// Running untrusted SQL on a built variant (docs/running-queries.md).
export { openDatabase, type Database, type DatabaseTarget } from './database/database.ts';
export {
  runUntrusted,
  streamUntrusted,
  createUntrustedExecutor,
  DEFAULT_CAPS,
  type UntrustedOptions,
  type UntrustedOutcome,
  type UntrustedExecutor,
} from './execute/untrusted-query.ts';
export { createSqliteExecutor, type SqliteExecutor, type SqliteExecutorOptions } from './execute/untrusted-sqlite.ts';

// Errors a caller may catch by class.
export { EquisqlError, ConfigError, ShredError, LoadError, CompileError } from './common/errors.ts';
