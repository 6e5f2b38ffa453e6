/**
 * The ground truth an RL row carries to its reward: where the databases of the row's variant
 * are (relative to the export's directory), the gold answer on each instance, precomputed and
 * normalized, and the answer rules. One ground truth serves every question of a group on one
 * variant; the row adds its question id, which the cross-variant bonus reads.
 *
 * Per instance (`main`, then `edge` when the build has one):
 * - `sqlite`: the variant's SQLite file (`sqlite/<variant>.sqlite`, `edge/sqlite/<variant>.sqlite`),
 *   or null when the run was not checked on SQLite;
 * - `postgres`: the variant's dump and DDL files and the PostgreSQL schema the build loaded it
 *   into, and the gold answer's hash as `equisql eval` computes it (`normalizeResult`), for a
 *   reward run on PostgreSQL;
 * - `rows`: the gold answer on the SQLite file (the variant's `sqlite_sql`, which the run kept
 *   only because it answered as PostgreSQL did), printed as the reward prints values and
 *   normalized by equisql's rules (null when the run was not checked on SQLite).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ExecutionError } from '../../common/errors.ts';
import { readManifest, type BuildManifest } from '../../assemble/build-manifest.ts';
import { normalizeResult } from '../../execute/run-query.ts';
import type { GroupRecord } from '../../records/group-record.ts';
import type { AnswerRows, SqliteGold } from './sqlite-gold.ts';

/** The version of the ground truth's shape; the reward refuses another. */
export const GROUND_TRUTH_FORMAT = 'equisql-rl/1';

export interface InstanceTruth {
  readonly name: 'main' | 'edge';
  readonly sqlite: string | null;
  readonly postgres: {
    readonly schema: string;
    readonly dump: string;
    readonly ddl: string;
    readonly hash: string;
    readonly row_count: number;
  };
  readonly rows: AnswerRows | null;
}

export interface GroundTruth {
  readonly format: typeof GROUND_TRUTH_FORMAT;
  readonly dataset: string;
  readonly group_id: string;
  readonly question_id: string;
  readonly variant: string;
  /** equisql's answer rules: the order counts only when `ordered`; a missing or extra duplicate is wrong; an array value is a set. */
  readonly rules: {
    readonly ordered: boolean;
    readonly duplicates: 'count';
    readonly arrays: 'set';
    readonly instances: 'all';
  };
  readonly instances: readonly InstanceTruth[];
}

/** What the ground truths of one generated directory are made from. */
export interface TruthSource {
  readonly dir: string;
  readonly main: BuildManifest;
  readonly edge: BuildManifest | undefined;
  readonly groups: ReadonlyMap<string, GroupRecord>;
  /**
   * Whether the run was checked on SQLite (`generate --engines postgres,sqlite`): its records
   * carry each variant's SQLite SQL (`variants.<v>.sqlite_sql`), proven on the SQLite files,
   * and the ground truth is SQLite's. Otherwise it is PostgreSQL's, without SQLite answers.
   */
  readonly sqlite: boolean;
}

/**
 * Reads the builds (main and edge) of `dir` and the engines its run was checked on; the
 * groups are the export's. A run checked on SQLite must still hold the SQLite file of every
 * variant SQLite holds, on every instance: a one-line ConfigError naming the first missing
 * one otherwise, before the export writes anything.
 */
export function truthSource(
  dir: string,
  groups: readonly GroupRecord[],
  settings: Readonly<Record<string, unknown>> | undefined,
): TruthSource {
  const edge = existsSync(join(dir, 'edge', 'build.json')) ? readManifest(join(dir, 'edge')) : undefined;
  const main = readManifest(dir);
  const engines = settings?.['engines'];
  const sqlite = Array.isArray(engines) && engines.includes('sqlite');
  if (sqlite) {
    for (const [prefix, build] of [
      ['', main],
      ['edge/', edge],
    ] as const) {
      if (!build) continue;
      for (const v of build.sqlite?.variants ?? []) {
        const rel = `${prefix}sqlite/${v}.sqlite`;
        if (!existsSync(join(dir, rel)))
          throw new ConfigError(
            `export: ${join(dir, rel)}: missing, and the run was checked on SQLite (its RL ground truth is SQLite's): run equisql generate --engines postgres,sqlite --resume --out ${dir} again to rebuild it`,
          );
      }
    }
  }
  return { dir, main, edge, groups: new Map(groups.map((g) => [g.group_id, g])), sqlite };
}

/**
 * The ground truths of a source, one per (group, variant) asked for, made once each.
 * `truth(group, variant)` throws an ExecutionError when the gold SQL fails on a SQLite file.
 */
export function groundTruths(
  source: TruthSource,
  gold: SqliteGold,
): (groupId: string, variant: string) => Omit<GroundTruth, 'question_id'> {
  const made = new Map<string, Omit<GroundTruth, 'question_id'>>();
  return (groupId, variant) => {
    const key = `${groupId}\u0000${variant}`;
    const known = made.get(key);
    if (known) return known;
    const group = source.groups.get(groupId);
    if (!group) throw new ConfigError(`export: group ${groupId} is not in ${source.dir}`);
    const answer = group.variants[variant];
    if (!answer) throw new ConfigError(`export: group ${groupId} has no SQL for variant ${variant}`);
    // The SQLite SQL the run proved on the SQLite files; none for a variant SQLite cannot hold.
    const sql = source.sqlite ? answer.sqlite_sql : undefined;
    if (source.sqlite && sql === undefined)
      throw new ExecutionError(`export: variant ${variant} is not held by SQLite (see build.json: sqlite.not_held)`);
    const instance = (name: 'main' | 'edge', build: BuildManifest): InstanceTruth => {
      const prefix = name === 'main' ? '' : 'edge/';
      const pgSchema = build.variants.find((v) => v.name === variant)?.pg_schema;
      if (pgSchema === undefined)
        throw new ConfigError(`export: ${join(source.dir, prefix, 'build.json')}: has no variant ${variant}`);
      const verified = group.verified_on.find((v) => v.profile === (name === 'main' ? 'default' : 'edge'));
      const hash = name === 'main' ? answer.result_hash : verified?.result_hash;
      if (hash === undefined)
        throw new ConfigError(
          `export: group ${groupId} has no answer on the ${name} instance (regenerate with equisql generate --out ${source.dir})`,
        );
      const rel = `${prefix}sqlite/${variant}.sqlite`;
      const file = join(source.dir, rel);
      const rows =
        sql !== undefined
          ? normalizeResult({ columns: [], rows: gold.rows(file, sql) as (string | null)[][] }, group.ordered).rows
          : null;
      return {
        name,
        sqlite: rows === null ? null : rel,
        postgres: {
          schema: pgSchema,
          dump: `${prefix}dumps/${variant}.sql`,
          ddl: `${prefix}schemas/${variant}.sql`,
          hash,
          row_count: name === 'main' ? answer.row_count : (verified?.row_count ?? answer.row_count),
        },
        rows,
      };
    };
    const truth = {
      format: GROUND_TRUTH_FORMAT,
      dataset: group.dataset,
      group_id: groupId,
      variant,
      rules: { ordered: group.ordered, duplicates: 'count', arrays: 'set', instances: 'all' },
      instances: [instance('main', source.main), ...(source.edge ? [instance('edge', source.edge)] : [])],
    } as const;
    made.set(key, truth);
    return truth;
  };
}

/** Whether an error is a gold SQL SQLite cannot run (the row is left out, not the export stopped). */
export function isGoldFailure(error: unknown): error is ExecutionError {
  return error instanceof ExecutionError;
}
