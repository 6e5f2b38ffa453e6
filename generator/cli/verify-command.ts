import { resolve } from 'node:path';
import type { Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { readManifest, targetOf, verifyDataset } from '../assemble/verify-dataset.ts';
import { refuseIfLocked } from '../assemble/dir-lock.ts';

const FLAGS = {
  dir: { type: 'string', value: 'DIR', required: true, help: 'a directory equisql build wrote' },
  db: {
    type: 'string',
    value: 'URL',
    help: 'postgres://… or pglite:DIR (default DATABASE_URL, else the PGlite that build.json names)',
  },
  json: { type: 'boolean', help: 'one JSON line per variant: {"variant", "instance_hash", "ok"}' },
} as const satisfies FlagTable;

const DETAILS = `Checks DIR/er.json and every schema and dump file against the SHA-256 that DIR/build.json
records (nothing missing, nothing extra), then reads every variant back from its database
and compares it with the conceptual instance regenerated from er.json and the recorded
seed. Exit status 0 only if all match.`;

export const command: Command = {
  name: 'verify',
  summary: 'read every variant back and compare it with the conceptual instance',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('verify', args, FLAGS).values;
    const dir = resolve(process.cwd(), required('verify', 'dir', flags.dir));
    // A directory a build is swapping is busy, not damaged: say so before reading it.
    refuseIfLocked(dir);
    const manifest = readManifest(dir);
    const db = flags.db ?? (manifest.database.kind === 'postgres' ? io.env['DATABASE_URL'] : undefined);
    const checks = await verifyDataset(dir, targetOf(dir, manifest, db), (check) => {
      if (flags.json)
        io.out(JSON.stringify({ variant: check.variant, instance_hash: check.instance_hash, ok: check.ok }));
      else io.out(`${check.ok ? 'ok  ' : 'FAIL'} ${check.variant} ${check.instance_hash.slice(0, 16)}`);
      if (!check.ok) for (const line of check.differences) io.err(`  ${check.variant}: ${line}`);
    });
    const failed = checks.filter((c) => !c.ok).length;
    if (!flags.json)
      io.err(
        failed === 0
          ? `all ${checks.length} variants match the instance`
          : `${failed} of ${checks.length} variants differ from the instance`,
      );
    return failed === 0 ? 0 : 1;
  },
};
