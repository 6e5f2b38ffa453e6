/**
 * Shard benchmark: one unsharded `generate` against N shards of it merged. Reports whether
 * the merge succeeded with the default --shard-margin and equals the unsharded run byte for
 * byte (the manifest's timings aside), and what the shards did between them against the
 * unsharded run: candidates decided, attempts verified (a verification runs every variant on
 * both instances), and groups-stage seconds. Counts do not depend on the machine's load;
 * seconds do.
 *
 *   npm run bench:shard [-- --groups 60 --shards 3 --dataset social_media]
 */
import { cpus, tmpdir } from 'node:os';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../generator/cli/main.ts';
import { candidatesPath, type CandidateOutcome } from '../generator/run/shard-run.ts';
import { readJsonLines } from '../generator/records/groups-file.ts';

const { values } = parseArgs({
  options: {
    groups: { type: 'string' },
    shards: { type: 'string' },
    dataset: { type: 'string' },
    variants: { type: 'string' },
  },
});
const groups = Number(values.groups ?? 60);
const count = Number(values.shards ?? 3);
const dataset = values.dataset ?? 'social_media';
const variants = values.variants ?? 'full_normalized,full_sti,full_cti';
const say = (s: string) => process.stdout.write(`${s}\n`);
say(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);

const quiet = {
  out: () => {},
  err: () => {},
  readStdin: async () => '',
  env: { ...process.env, DATABASE_URL: undefined },
};
const args = ['generate', '--dataset', dataset, '--variants', variants, '--scale', 'tiny', '--groups', String(groups)];

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (name === 'pglite' || name === '.equisql.lock') continue;
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path).toString('hex'));
    }
  };
  walk(dir);
  const m = JSON.parse(Buffer.from(out.get('manifest.json') as string, 'hex').toString('utf8'));
  delete m.timings;
  out.set('manifest.json', JSON.stringify(m));
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'equisql-bench-shard-'));
try {
  const whole = join(dir, 'whole');
  const status = await main([...args, '--out', whole], quiet);
  const manifest = JSON.parse(readFileSync(join(whole, 'manifest.json'), 'utf8'));
  const rejected = manifest.counts.rejected as Record<string, number>;
  say(
    `unsharded: exit ${status}, ${manifest.counts.accepted} groups from ${manifest.counts.candidates} candidates (${rejected['difficulty-quota']} rejected by quota before the database, ${rejected['duplicate']} duplicates); groups stage ${manifest.timings.total_seconds} s, ${manifest.timings.database_seconds} s in the database`,
  );
  let decided = 0;
  let verified = 0;
  let seconds = 0;
  let database = 0;
  const shardDirs: string[] = [];
  for (let i = 1; i <= count; i++) {
    const out = join(dir, `shard-${i}`);
    // From a copy of the build: the shards' own builds would only add the build time N times.
    for (const f of ['build.json', 'er.json', 'schemas', 'dumps', 'edge', 'pglite'])
      cpSync(join(whole, f), join(out, f), { recursive: true });
    await main([...args, '--shard', `${i}/${count}`, '--out', out], quiet);
    const outcomes = readJsonLines<CandidateOutcome>(candidatesPath(out, dataset), false);
    const state = JSON.parse(readFileSync(join(out, 'shard.json'), 'utf8'));
    const v = outcomes.reduce(
      (a, o) =>
        a +
        o.attempts.filter(
          (t) =>
            t.group ||
            (t.rejected &&
              ![
                'compile-error',
                'no-fitting-slot',
                'no-fitting-value',
                'unsupported-skeleton',
                'meaningless-skeleton',
              ].includes(t.rejected.reason)),
        ).length,
      0,
    );
    say(
      `shard ${i}/${count}: ${outcomes.length} candidates, ${v} attempts that reached the database checks, ${state.counts.verified} groups of its own; ${state.timings.total_seconds} s, ${state.timings.database_seconds} s in the database`,
    );
    decided += outcomes.length;
    verified += v;
    seconds += state.timings.total_seconds;
    database += state.timings.database_seconds;
    shardDirs.push(out);
  }
  const merged = join(dir, 'merged');
  const mergeStatus = await main(['merge', '--out', merged, ...shardDirs], quiet);
  let same = false;
  if (mergeStatus === 0 || mergeStatus === 1) {
    const a = files(whole);
    const b = files(merged);
    same = a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
  }
  say(`merge: exit ${mergeStatus}; byte-identical to the unsharded run (timings aside): ${same ? 'yes' : 'no'}`);
  say(
    `shards together: ${decided} candidates decided (unsharded: ${manifest.counts.candidates}), ${verified} attempts checked in the database; ${seconds.toFixed(1)} s groups stage (unsharded ${manifest.timings.total_seconds} s), ${database.toFixed(1)} s in the database (unsharded ${manifest.timings.database_seconds} s)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
