/**
 * The export's RL part: per split the files of the RL formats asked for, then the shipped
 * reward files, each recorded in the manifest's `files`. The gold answers are computed on the
 * SQLite files when the run was checked on SQLite (`generate --engines postgres,sqlite`), from
 * the SQLite SQL it proved there; the prompt then asks for SQLite, else for PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeLinesAtomic } from '../../common/atomic-write.ts';
import type { ExportRecord } from '../../records/export-record.ts';
import type { SplitName } from '../split-assign.ts';
import { groundTruths, type TruthSource } from './ground-truth.ts';
import type { RlDialect } from './rl-prompt.ts';
import {
  openrlhfLine,
  REWARD_DIR,
  REWARD_FILES,
  rewardFileText,
  RL_DIR,
  RL_FORMATS,
  rlFile,
  rlRows,
  trlLine,
  writeVerlParquet,
  type RlFormat,
} from './rl-files.ts';
import { openSqliteGold } from './sqlite-gold.ts';

/** The manifest's `export.rl`. */
export interface RlSection {
  readonly formats: readonly RlFormat[];
  /** The engine the prompts name and the gold answers were computed on. */
  readonly dialect: RlDialect;
  readonly reward: string;
  /** Rows left out because their gold SQL does not run on SQLite. */
  readonly left_out: number;
}

export interface RlWriter {
  /** Writes a split's files; `ddlOf` gives a row's prompt schema. */
  split(split: SplitName, rows: readonly ExportRecord[], ddlOf: (r: ExportRecord) => string): Promise<void>;
  /** Writes the reward files and closes the SQLite files. */
  finish(): RlSection;
  /** Closes the SQLite files (after a failure). */
  close(): void;
}

/**
 * A writer of `formats` for a generated directory's ground truths (`truthSource`, read before
 * the export writes anything), recording each file in `files` (relative path → rows, sha256).
 *
 * @example
 * const rl = rlWriter(truthSource('output/social_media', groups, settings), ['verl'], files);
 * await rl.split('train', rows, (r) => ddl.get(r.schema_id));
 * rl.finish(); // { formats: ['verl'], dialect: 'SQLite', reward: 'rewards/equisql_reward.py', left_out: 0 }
 */
export function rlWriter(
  source: TruthSource,
  formats: readonly RlFormat[],
  files: Record<string, { rows: number; sha256: string }>,
): RlWriter {
  const { dir } = source;
  const dialect: RlDialect = source.sqlite ? 'SQLite' : 'PostgreSQL';
  const gold = openSqliteGold();
  const truthOf = groundTruths(source, gold);
  let leftOut = 0;
  for (const f of formats) mkdirSync(join(dir, RL_DIR, f), { recursive: true });
  const put = (rel: string, lines: Iterable<string>, count: number): void => {
    files[rel] = { rows: count, sha256: writeLinesAtomic(join(dir, rel), lines) };
  };
  return {
    async split(split, records, ddlOf) {
      const made = rlRows(records, ddlOf, truthOf, dialect);
      leftOut += made.leftOut;
      for (const f of formats) {
        const rel = rlFile(f, split);
        if (f === 'verl') {
          await writeVerlParquet(join(dir, rel), made.rows);
          files[rel] = {
            rows: made.rows.length,
            sha256: createHash('sha256')
              .update(readFileSync(join(dir, rel)))
              .digest('hex'),
          };
        } else {
          put(rel, made.rows.map(f === 'trl-grpo' ? trlLine : openrlhfLine), made.rows.length);
        }
      }
    },
    finish() {
      gold.close();
      mkdirSync(join(dir, REWARD_DIR), { recursive: true });
      for (const name of REWARD_FILES) put(`${REWARD_DIR}/${name}`, [rewardFileText(name)], 1);
      return { formats, dialect, reward: `${REWARD_DIR}/${REWARD_FILES[0]}`, left_out: leftOut };
    },
    close() {
      gold.close();
    },
  };
}

/**
 * Removes what an earlier export left under `rl/` and `rewards/` that this one did not write
 * (`written`: the export's files by relative path).
 */
export function removeStaleRlFiles(dir: string, written: Readonly<Record<string, unknown>>): void {
  for (const top of [RL_DIR, REWARD_DIR]) {
    const root = join(dir, top);
    if (!existsSync(root) || !statSync(root).isDirectory()) continue;
    for (const name of readdirSync(root)) {
      const path = join(root, name);
      if (statSync(path).isDirectory()) {
        if (!(RL_FORMATS as readonly string[]).includes(name) || top !== RL_DIR) {
          rmSync(path, { recursive: true, force: true });
          continue;
        }
        for (const file of readdirSync(path))
          if (!file.startsWith('.') && !Object.hasOwn(written, `${top}/${name}/${file}`))
            rmSync(join(path, file), { force: true, recursive: true });
        if (readdirSync(path).length === 0) rmSync(path, { recursive: true, force: true });
      } else if (!name.startsWith('.') && !Object.hasOwn(written, `${top}/${name}`)) {
        rmSync(path, { force: true });
      }
    }
    if (readdirSync(root).length === 0) rmSync(root, { recursive: true, force: true });
  }
}
