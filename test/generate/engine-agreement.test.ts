// @tier long
/**
 * Agreement across engines in generation. `generate --engines postgres,sqlite` on both
 * built-in domains keeps a group only when every variant's SQLite SQL answers as PostgreSQL
 * does on both instances; here every kept group's SQLite SQL is run again, independently, by
 * Debian's `sqlite3` command-line shell on the files generate wrote, and compared with the
 * recorded PostgreSQL answer (re-run on the written PGlite database, whose hash must be the
 * recorded one) in the engines' neutral form. A second test corrupts one row of a copy of one
 * variant's SQLite file and checks the candidate that reads it is rejected, naming the variant.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database as PgDatabase } from '../../generator/database/database.ts';
import { readManifest } from '../../generator/assemble/build-manifest.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { normalizeResult, runReadOnly } from '../../generator/execute/run-query.ts';
import { neutralResult, sameAnswer } from '../../generator/execute/engine-neutral.ts';
import { compileSqlite } from '../../generator/compile/sqlite/compile-sqlite.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { prepareBuilds } from '../../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../../generator/generate/query-runner.ts';
import { generateGroups } from '../../generator/run/generate-groups.ts';
import type { CheckVariant } from '../../generator/generate/group-checks.ts';
import type { GroupRecord, Rejection } from '../../generator/records/group-record.ts';
import { groupsPath, readJsonLines, rejectionsPath } from '../../generator/records/groups-file.ts';
import { checkResume, writeRunSettings } from '../../generator/run/run-settings.ts';
import { attr, entity, out, select } from '../../generator/query/query-builder.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { runMain } from '../helpers/run-cli.ts';
import { sized } from '../helpers/tiers.ts';

/** Groups per built-in domain. */
const GROUPS = sized('EQUISQL_ENGINE_GROUPS', 30, 300);

const tmp = tempDir('engine-agreement');
afterAll(() => tmp.remove());

/** The `sqlite3` shell's version, or undefined when there is none on the PATH. */
function shellVersion(): string | undefined {
  const r = spawnSync('sqlite3', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? (r.stdout.split(' ')[0] as string) : undefined;
}
const SHELL = shellVersion();

type Row = (string | null)[];

/**
 * Runs statements with the `sqlite3` shell on a file opened read-only, in `.mode quote`
 * (each value an SQL literal: NULL, a number, 'text' with '' for a quote), one process for
 * them all; a marker row after each statement says where its rows end.
 */
function shellRows(file: string, statements: readonly string[]): Row[][] {
  const marker = '@@end of statement@@';
  const script = statements.map((s) => `${s.trim().replace(/;$/u, '')};\nSELECT '${marker}';\n`).join('');
  const text = execFileSync('sqlite3', ['-readonly', '-quote', '-bail', file], {
    input: script,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const results: Row[][] = [];
  let rows: Row[] = [];
  for (const row of quotedRows(text)) {
    if (row.length === 1 && row[0] === marker) {
      results.push(rows);
      rows = [];
    } else {
      rows.push(row);
    }
  }
  return results;
}

/** The rows of `.mode quote` output: values separated by commas, rows by newlines outside quotes. */
function quotedRows(text: string): Row[] {
  const rows: Row[] = [];
  let row: Row = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === "'") {
      let value = '';
      i++;
      for (;;) {
        const j = text.indexOf("'", i);
        if (j < 0) throw new Error(`unterminated text in the shell's output at ${i}`);
        value += text.slice(i, j);
        if (text[j + 1] === "'") {
          value += "'";
          i = j + 2;
        } else {
          i = j + 1;
          break;
        }
      }
      row.push(value);
    } else {
      const end = /[,\n]/gu;
      end.lastIndex = i;
      const m = end.exec(text);
      const j = m ? m.index : text.length;
      const token = text.slice(i, j);
      if (/^X'/u.test(token)) throw new Error(`a blob in the shell's output: ${token.slice(0, 20)}`);
      row.push(token === 'NULL' ? null : token);
      i = j;
    }
    if (text[i] === ',') i++;
    else if (text[i] === '\n' || i >= text.length) {
      rows.push(row);
      row = [];
      i++;
    }
  }
  return rows;
}

describe.each(['retail', 'social_media'])('%s: generate --engines postgres,sqlite', (dataset) => {
  it.skipIf(SHELL === undefined)(
    `keeps ${GROUPS} groups whose SQLite SQL, re-run by the sqlite3 shell on the written files, gives the recorded answer on both instances`,
    async () => {
      // Debian 12's shell is 3.40: the gold SQL must read the same there as in better-sqlite3's 3.53.
      expect(SHELL).toMatch(/^3\.\d+\./u);
      const dir = join(tmp.dir, dataset);
      const run = await runMain(
        [
          'generate',
          '--dataset',
          dataset,
          '--scale',
          'tiny',
          '--groups',
          String(GROUPS),
          '--engines',
          'postgres,sqlite',
          '--formats',
          'jsonl',
          '--out',
          dir,
          '--db',
          `pglite:${join(dir, 'pglite')}`,
        ],
        { env: { DATABASE_URL: undefined } },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toMatch(
        /SQLite: \d+\.\d% of candidates lost to engine disagreement, \d+\.\d% to dialect refusals/u,
      );
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
        settings: { engines: string[] };
        counts: { candidates: number; rejected: Record<string, number> };
        sqlite: {
          variants: string[];
          not_held: Record<string, string>;
          lost: Record<string, { candidates: number; share: number }>;
        };
      };
      expect(manifest.settings.engines).toEqual(['postgres', 'sqlite']);
      const main = readManifest(dir);
      const edge = readManifest(join(dir, 'edge'));
      // Every built-in preset is held by SQLite: a file for each, on both instances.
      expect(manifest.sqlite.variants).toEqual(main.variants.map((v) => v.name));
      expect(manifest.sqlite.not_held).toEqual({});
      const disagreed = Object.entries(manifest.counts.rejected)
        .filter(([r]) => r.startsWith('engine-disagreement:'))
        .reduce((a, [, n]) => a + n, 0);
      expect(manifest.sqlite.lost['engine_disagreement']?.candidates).toBe(disagreed);
      expect(manifest.sqlite.lost['engine_disagreement']?.share).toBeCloseTo(disagreed / manifest.counts.candidates, 4);

      const groups = readJsonLines<GroupRecord>(groupsPath(dir, dataset), false);
      expect(groups).toHaveLength(GROUPS);
      const index = indexDomain(BUILT_IN_DOMAINS[dataset]!);
      const db: PgDatabase = await openDatabase({ kind: 'pglite', dir: join(dir, 'pglite'), mustExist: true });
      let compared = 0;
      try {
        for (const instance of ['main', 'edge'] as const) {
          const build = instance === 'main' ? main : edge;
          for (const v of build.variants) {
            const file = join(dir, instance === 'main' ? '' : 'edge', 'sqlite', `${v.name}.sqlite`);
            const schema = buildRelationalSchema(index, v.spec);
            const sqliteSql = groups.map((g) => g.variants[v.name]?.sqlite_sql as string);
            // Each variant's SQLite SQL is the dialect's compilation of the group's query.
            groups.forEach((g, i) =>
              expect(sqliteSql[i], `${g.group_id} ${v.name}`).toBe(compileSqlite(index, schema, g.query)),
            );
            const answers = shellRows(file, sqliteSql);
            expect(answers).toHaveLength(groups.length);
            for (const [i, g] of groups.entries()) {
              const answer = g.variants[v.name]!;
              const postgres = await runReadOnly(db, v.pg_schema, answer.sql);
              const recorded =
                instance === 'main'
                  ? { hash: answer.result_hash, rows: answer.row_count }
                  : {
                      hash: g.verified_on.find((o) => o.profile === 'edge')?.result_hash,
                      rows: g.verified_on.find((o) => o.profile === 'edge')?.row_count,
                    };
              // The PostgreSQL answer re-run is the recorded one...
              const pg = normalizeResult(postgres, g.ordered);
              expect(pg.hash, `${g.group_id} ${v.name} ${instance}`).toBe(recorded.hash);
              expect(pg.rows.length).toBe(recorded.rows);
              // ...and the shell's SQLite answer is the same, in the engines' neutral form.
              const shell = neutralResult({ columns: [], rows: answers[i] as Row[] }, g.ordered);
              const want = neutralResult(postgres, g.ordered);
              if (!sameAnswer(shell, want))
                expect.fail(
                  `${g.group_id} on ${v.name} (${instance}): the sqlite3 shell answers otherwise\n${sqliteSql[i]}\n${JSON.stringify(shell.rows.slice(0, 3))}\n${JSON.stringify(want.rows.slice(0, 3))}`,
                );
              compared++;
            }
          }
        }
      } finally {
        await db.close();
      }
      expect(compared).toBe(2 * GROUPS * main.variants.length);
    },
    900_000,
  );
});

describe('a SQLite answer that differs from PostgreSQL', () => {
  it('rejects the candidate as engine-disagreement naming the variant whose file differs', async () => {
    const domain = BUILT_IN_DOMAINS['retail']!;
    const index = indexDomain(domain);
    const db = await openDatabase({ kind: 'pglite' });
    try {
      const builds = await prepareBuilds({
        dataset: 'retail',
        domain,
        variants: 'full_sti,full_cti',
        scale: 'tiny',
        seed: 1,
        db,
        out: join(tmp.dir, 'corrupt'),
        engines: ['postgres', 'sqlite'],
      });
      const cti = builds.variants.find((v) => v.name === 'full_cti')!;
      // One row of a copy of full_cti's main file changed: a customer's first name.
      const copy = join(tmp.dir, 'corrupt', 'full_cti.changed.sqlite');
      copyFileSync(cti.sqliteFiles!.main, copy);
      const file = new Database(copy);
      const table = cti.schema.tables.find((t) => t.columns.some((c) => c.name === 'first_name'))!.name;
      const changed = file
        .prepare(
          `UPDATE "${table}" SET first_name = first_name || '!' WHERE rowid = (SELECT min(rowid) FROM "${table}")`,
        )
        .run().changes;
      file.close();
      expect(changed).toBe(1);
      const variants = builds.variants.map((v) =>
        v.name === 'full_cti' ? { ...v, sqliteFiles: { ...v.sqliteFiles!, main: copy } } : v,
      );
      const query = select({
        from: entity('User', 'u'),
        select: [
          out('first_name', attr('u', 'first_name')),
          out('last_name', attr('u', 'last_name')),
          out('email', attr('u', 'email')),
        ],
      });
      const run = (name: string, vs: readonly CheckVariant[]) =>
        generateGroups({
          dataset: 'retail',
          out: join(tmp.dir, 'corrupt', name),
          index,
          instance: builds.instance,
          instanceHashes: {
            main: builds.main.instance_hash,
            ...(builds.edge ? { edge: builds.edge.instance_hash } : {}),
          },
          variants: vs,
          runner: createQueryRunner([db], 20_000),
          grammar: parseGrammar(
            readFileSync(new URL('../../grammars/spider.pcfg', import.meta.url), 'utf8'),
            'spider.pcfg',
          ),
          seed: 1,
          groups: 1,
          suite: [{ id: 'customers', query }],
          settings: { engines: ['postgres', 'sqlite'] },
        });
      // On the files as built the group is kept, with each variant's SQLite SQL.
      expect((await run('whole', builds.variants)).accepted).toBe(1);
      const kept = readJsonLines<GroupRecord>(groupsPath(join(tmp.dir, 'corrupt', 'whole'), 'retail'), false)[0]!;
      expect(Object.keys(kept.variants).every((v) => typeof kept.variants[v]?.sqlite_sql === 'string')).toBe(true);
      // On the changed copy it is rejected, naming the variant and the instance.
      const report = await run('changed', variants);
      expect(report.accepted).toBe(0);
      const [rejection] = readJsonLines<Rejection>(rejectionsPath(join(tmp.dir, 'corrupt', 'changed')), false);
      expect(rejection?.reason).toBe('engine-disagreement:full_cti');
      expect(rejection?.detail).toMatch(
        /^customers: main instance: SQLite \d+ rows, PostgreSQL \d+; SQLite \+ \["[^"]*!"/u,
      );
      expect(report.rejected['engine-disagreement:full_cti']).toBe(1);
      const manifest = JSON.parse(readFileSync(join(tmp.dir, 'corrupt', 'changed', 'manifest.json'), 'utf8')) as {
        sqlite: { lost: { engine_disagreement: { candidates: number; share: number } } };
      };
      expect(manifest.sqlite.lost.engine_disagreement).toEqual({ candidates: 1, share: 1 });
    } finally {
      await db.close();
    }
  }, 300_000);
});

describe('the engines as a run setting', () => {
  it('refuses a resume with other engines, and takes a run on PostgreSQL alone for one that says --engines postgres', () => {
    const base = { dataset: 'retail', groups: 10 };
    const withSqlite = join(tmp.dir, 'resume-sqlite');
    const alone = join(tmp.dir, 'resume-postgres');
    for (const d of [withSqlite, alone]) mkdirSync(d, { recursive: true });
    writeRunSettings(withSqlite, { ...base, engines: ['postgres', 'sqlite'] });
    expect(() => checkResume(withSqlite, 'retail', base, true)).toThrow(
      /was generated with engines \["postgres","sqlite"\], not \["postgres"\]/u,
    );
    expect(() => checkResume(withSqlite, 'retail', { ...base, engines: ['postgres', 'sqlite'] }, true)).not.toThrow();
    writeRunSettings(alone, base);
    expect(() => checkResume(alone, 'retail', { ...base, engines: ['postgres', 'sqlite'] }, true)).toThrow(
      /was generated with engines \["postgres"\], not \["postgres","sqlite"\]/u,
    );
    expect(() => checkResume(alone, 'retail', { ...base, engines: ['postgres'] }, true)).not.toThrow();
  });
});
