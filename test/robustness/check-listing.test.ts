// @tier long
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import {
  copyDir,
  expectRefused,
  generateArgs,
  generateTiny,
  killWhen,
  NO_SERVER,
  snapshot,
  tempFiles,
  widen,
} from './stage-dirs.ts';

// Findings 6 to 9 of issue 16: check passed over files it does not list, a kill between the
// manifest and the card left them disagreeing, killed exports left temporary files that a
// rerun kept, and file-system surprises ended in "internal error".
const tmp = tempDir('check-listing');
afterAll(() => tmp.remove());
const reference = join(tmp.dir, 'reference');
const wide = join(tmp.dir, 'wide');
let suite = '';
let refFiles: Record<string, string>;
const TRAIN = 'data/train-00000-of-00001';
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

beforeAll(async () => {
  suite = generateTiny(tmp.dir, reference);
  refFiles = snapshot(reference);
  copyDir(reference, wide);
  widen(wide, 300);
}, 600_000);

describe('finding 6: check lists the folder', () => {
  it('a copy of the test split saved under a name the train subset reads fails check, naming it', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'copied-split'));
    cpSync(join(dir, 'data/test-00000-of-00001.parquet'), join(dir, 'data/train-00001-of-00002.parquet'));
    // What a reader of data/train-* would take for train: the test rows too.
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const read = await duck.runAndReadAll(
      `SELECT count(*)::INT AS n, count(DISTINCT split)::INT AS splits FROM read_parquet('${join(dir, 'data')}/train-*.parquet')`,
    );
    expect(read.getRowObjects()[0]).toMatchObject({ splits: 2 });
    duck.closeSync();
    const check = await runMain(['check', '--dir', dir]);
    expect(check.status).toBe(1);
    expect(check.stdout).toBe(
      "file: data/train-00001-of-00002.parquet: not recorded in the manifest, but where the card's subsets read files\n",
    );
  }, 120_000);

  it('a file dropped from the manifest and overwritten with garbage fails check, naming it', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'dropped'));
    const m = manifestOf(dir);
    const rel = 'data/validation-00000-of-00001.jsonl';
    expect(m.export.files[rel]).toBeDefined();
    delete m.export.files[rel];
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
    writeFileSync(join(dir, rel), 'garbage\n');
    const check = await runMain(['check', '--dir', dir]);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/^file: data\/validation-00000-of-00001\.jsonl: not recorded in the manifest/mu);
  }, 120_000);

  it('a folder in data/ fails check; a repeated row, with the manifest refreshed to match, is found as a duplicate', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'folder'));
    mkdirSync(join(dir, 'data', 'train-00001-of-00002.jsonl'));
    const check = await runMain(['check', '--dir', dir]);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/^file: data\/train-00001-of-00002\.jsonl\/: a folder the manifest does not record/mu);
    rmSync(join(dir, 'data', 'train-00001-of-00002.jsonl'), { recursive: true });
    const rows = readFileSync(join(dir, `${TRAIN}.jsonl`), 'utf8')
      .split(/(?<=\n)/u)
      .filter((l) => l !== '');
    const text = [...rows, rows[0] as string].join('');
    writeFileSync(join(dir, `${TRAIN}.jsonl`), text);
    const m = manifestOf(dir);
    m.export.files[`${TRAIN}.jsonl`] = {
      rows: rows.length + 1,
      sha256: createHash('sha256').update(text).digest('hex'),
    };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
    const again = await runMain(['check', '--dir', dir]);
    expect(again.status).toBe(1);
    expect(again.stdout).toMatch(
      new RegExp(
        `^duplicate: ${TRAIN}\\.jsonl:${rows.length + 1}: row [0-9a-f]{12} again \\(first at ${TRAIN}\\.jsonl:1\\)$`,
        'mu',
      ),
    );
  }, 120_000);
});

describe('finding 7: a kill between the card and the manifest', () => {
  it('kill -9 of export as the card or the manifest changes: check passes only where the card and the manifest describe one export', async () => {
    const cards: Record<string, string> = {};
    for (const split of ['random', 'skeleton']) {
      const d = copyDir(wide, join(tmp.dir, `card-${split}`));
      expect((await runMain(['export', '--dir', d, '--split', split], { env: NO_SERVER })).status).toBe(0);
      cards[split] = readFileSync(join(d, 'README.md'), 'utf8');
    }
    expect(cards['random']).not.toBe(cards['skeleton']);
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const dir = copyDir(join(tmp.dir, 'card-random'), join(tmp.dir, `card-kill-${i}`));
      // Alternately the first moment the manifest, or the card, is replaced.
      const watched = join(dir, i % 2 === 0 ? 'manifest.json' : 'README.md');
      const before = statSync(watched).mtimeMs;
      const killed = await killWhen(
        ['export', '--dir', dir, '--split', 'skeleton'],
        () => statSync(watched).mtimeMs !== before,
      );
      const card = readFileSync(join(dir, 'README.md'), 'utf8');
      const cardSplit = card === cards['skeleton'] ? 'skeleton' : card === cards['random'] ? 'random' : 'other';
      const manifestSplit = manifestOf(dir).export.split as string;
      const check = await runMain(['check', '--dir', dir]);
      outcomes.push(
        `${killed ? 'killed' : 'ran'}: card ${cardSplit}, manifest ${manifestSplit}, check ${check.status}`,
      );
      expect(check.status === 0 ? cardSplit : manifestSplit, outcomes.join('; ')).toBe(manifestSplit);
      if (cardSplit !== manifestSplit)
        expect(check.stdout, outcomes.join('; ')).toMatch(/^file: README\.md: differs from its seal in the manifest/mu);
    }
    // The kills landed where the card and the manifest can disagree, at least once.
    expect(
      outcomes.some(
        (o) =>
          o.startsWith('killed') &&
          /card random, manifest random|card skeleton, manifest random|card random, manifest skeleton/u.test(o),
      ),
      outcomes.join('; '),
    ).toBe(true);
  }, 600_000);
});

describe('finding 8: temporary files a kill leaves', () => {
  it('kill -9 of export while it writes a data file: the next export removes the temporary file and gives the same bytes', async () => {
    const dir = copyDir(wide, join(tmp.dir, 'temp-export'));
    const want = snapshot(dir);
    let killed = false;
    for (let i = 0; i < 10 && !killed; i++) {
      // A kill can land just after the rename; only a kill that left a temporary file counts.
      killed =
        (await killWhen(['export', '--dir', dir], () =>
          tempFiles(dir).some((f) => f.startsWith('data/') || f.startsWith('finetune/')),
        )) && tempFiles(dir).length > 0;
    }
    expect(killed).toBe(true);
    expect(tempFiles(dir).length).toBeGreaterThan(0);
    // check names what the kill left where the card's subsets read.
    const check = await runMain(['check', '--dir', dir]);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/^file: (data|finetune)\/\..*\.\d+\.tmp: not recorded in the manifest/mu);
    expect((await runMain(['export', '--dir', dir], { env: NO_SERVER })).status).toBe(0);
    expect(tempFiles(dir)).toEqual([]);
    expect(snapshot(dir)).toEqual(want);
    expect((await runMain(['check', '--dir', dir])).status).toBe(0);
  }, 600_000);

  it('kill -9 during the export stage of generate: --resume removes what the kill left and gives the files of an uninterrupted run', async () => {
    let killed = false;
    let dir = '';
    for (let i = 0; i < 12 && !killed; i++) {
      dir = copyDir(reference, join(tmp.dir, `temp-generate-${i}`));
      rmSync(join(dir, 'data'), { recursive: true });
      rmSync(join(dir, 'finetune'), { recursive: true });
      killed =
        (await killWhen([...generateArgs(dir, suite), '--resume'], () =>
          tempFiles(dir).some((f) => f.startsWith('data/') || f.startsWith('finetune/')),
        )) && tempFiles(dir).length > 0;
    }
    expect(killed).toBe(true);
    expect(tempFiles(dir).length).toBeGreaterThan(0);
    await runMain([...generateArgs(dir, suite), '--resume'], { env: NO_SERVER });
    expect(tempFiles(dir)).toEqual([]);
    expect(snapshot(dir)).toEqual(refFiles);
  }, 600_000);
});

describe('finding 9: file-system surprises get one line, exit 2', () => {
  it('check: a data file replaced by a directory, manifest rows given as a string, a manifest that is a directory', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'surprises'));
    rmSync(join(dir, `${TRAIN}.jsonl`));
    mkdirSync(join(dir, `${TRAIN}.jsonl`));
    expectRefused(
      await runMain(['check', '--dir', dir]),
      new RegExp(`^equisql check: .*${TRAIN}\\.jsonl: a directory, where the manifest lists a file$`, 'u'),
    );
    const other = copyDir(reference, join(tmp.dir, 'rows-string'));
    const m = manifestOf(other);
    m.export.files[`${TRAIN}.jsonl`].rows = String(m.export.files[`${TRAIN}.jsonl`].rows);
    writeFileSync(join(other, 'manifest.json'), JSON.stringify(m, null, 2));
    expectRefused(
      await runMain(['check', '--dir', other]),
      new RegExp(
        `^equisql check: .*manifest\\.json: export\\.files\\["${TRAIN}\\.jsonl"\\] must be \\{"rows": a whole number, "sha256": 64 hex digits\\}, got \\{"rows":"\\d+"`,
        'u',
      ),
    );
    const third = copyDir(reference, join(tmp.dir, 'manifest-dir'));
    rmSync(join(third, 'manifest.json'));
    mkdirSync(join(third, 'manifest.json'));
    expectRefused(
      await runMain(['check', '--dir', third]),
      /^equisql check: .*manifest\.json: a directory where a file should be$/u,
    );
  }, 120_000);

  it('export: a file where data/ should be, a directory where a data file goes; each leaves the earlier export as it was', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'export-surprises'));
    const keep = readdirSync(join(dir, 'data'));
    rmSync(join(dir, 'finetune'), { recursive: true });
    writeFileSync(join(dir, 'finetune'), 'not a folder\n');
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      /^equisql export: .*finetune: a file where the export's folder should be$/u,
    );
    expect(readdirSync(join(dir, 'data'))).toEqual(keep);
    rmSync(join(dir, 'finetune'));
    cpSync(join(reference, 'finetune'), join(dir, 'finetune'), { recursive: true });
    rmSync(join(dir, `${TRAIN}.jsonl`));
    mkdirSync(join(dir, `${TRAIN}.jsonl`));
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      new RegExp(`^equisql export: .*${TRAIN}\\.jsonl: a directory where the export writes its files$`, 'u'),
    );
    expect(snapshot(dir)['manifest.json']).toBe(refFiles['manifest.json']);
  }, 120_000);
});
