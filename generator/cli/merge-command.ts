import { resolve } from 'node:path';
import { EXIT, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { EXPORT_FLAGS } from './export-flags.ts';
import { lockDir } from '../assemble/dir-lock.ts';
import { exportSettings } from '../export/export-settings.ts';
import { checkMergeDirs, expandShardDirs, mergeShards } from '../run/merge-shards.ts';
import { isCorpusShard, mergeCorpusShards } from '../run/corpus-shards.ts';
import { displayFor } from './progress-bar.ts';

const FLAGS = {
  out: {
    type: 'string',
    value: 'DIR',
    required: true,
    help: 'where the merged run goes; must not exist yet or be empty',
  },
  ...EXPORT_FLAGS,
} as const satisfies FlagTable;

const DETAILS = `Joins the directories of N shard runs (equisql generate … --shard i/N --out DIR_i, the same
settings and seed, every i from 1 to N once) into DIR: the build, groups/, rejections.jsonl,
questions/, data/, finetune/, README.md and manifest.json one unsharded generate with those
settings writes, byte for byte; only the manifest's "timings" differ (they add up the shards'
groups stages). A quoted pattern ('out/retail-*') names every folder it matches. Refused
with one line: shards of other settings or seeds, a missing or twice-given shard, an
unfinished shard or one without its completion marker (shard.done), a shard that stopped before a candidate the merged
run needs (continue it with --resume and a larger --shard-margin).

Shards of a corpus (generate --corpus NAME --shard i/N: each runs whole databases) are gathered
the same way into the unsharded corpus run's folder and exported together, byte for byte.`;

export const command: Command = {
  name: 'merge',
  summary: 'join shard runs (generate --shard i/N) into the output of one unsharded run',
  flags: FLAGS,
  operands: "DIR_1 … DIR_N | 'DIR_*'",
  details: DETAILS,
  async run(args, io) {
    const { values: flags, positionals } = parseTable('merge', args, FLAGS, { positionals: true });
    const cwd = process.cwd();
    const out = resolve(cwd, required('merge', 'out', flags.out));
    const settings = exportSettings('merge', flags);
    // Folders, or patterns of them (out/shard-*) as a script or an engine passes them quoted.
    const shards = expandShardDirs(positionals, cwd);
    checkMergeDirs(out, shards);
    // Each shard is read while no generate may be writing it.
    const locks: (() => void)[] = [];
    try {
      for (const d of new Set(shards)) locks.push(lockDir(d, 'merge'));
      const shown = displayFor(io);
      const merge = shards.length > 0 && isCorpusShard(shards[0] as string) ? mergeCorpusShards : mergeShards;
      const report = await merge({ out, shards, ...settings, progress: shown.message, tick: shown.tick });
      shown.end();
      io.err(`merge: ${report.groups} groups, ${report.rows} rows into ${out}`);
      return report.groups >= report.target ? EXIT.ok : EXIT.checkFailed;
    } finally {
      for (const unlock of locks) unlock();
    }
  },
};
