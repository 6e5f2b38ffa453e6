import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusEntries, resolveCorpus } from '../../generator/config/corpus.ts';
import { loadConfig } from '../../generator/config/load-config.ts';
import { ConfigError } from '../../generator/common/errors.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

// A corpus names its databases by a config entry, a JSON list or a folder; each resolves to
// one dataset with its own db_id, and an import entry waits for the importer at one seam.
const tmp = tempDir('corpus-entries');
afterAll(() => tmp.remove());
const LIBRARY = join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json');

const refusal = async (run: () => unknown): Promise<string> => {
  const error = await (async () => run())().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).not.toContain('\n');
  return (error as Error).message;
};

describe('corpus entries', () => {
  it('a corpus of the shipped config, a JSON list and a folder resolve to databases with their db_id', async () => {
    const { config, path } = await loadConfig(undefined, REPO_ROOT);
    const shipped = await resolveCorpus(corpusEntries('built_in', config, path, REPO_ROOT), config, path, REPO_ROOT);
    expect(shipped.map((d) => [d.db_id, d.entry.kind])).toEqual([
      ['social_media', 'dataset'],
      ['retail', 'dataset'],
    ]);
    // The config's dataset carries its settings (seed, difficulty) into the corpus.
    expect(shipped[1]?.dataset.definition.difficulty).toEqual({ easy: 0.2, medium: 0.35, hard: 0.25, extra: 0.2 });

    const models = join(tmp.dir, 'models');
    mkdirSync(models);
    copyFileSync(LIBRARY, join(models, 'library.json'));
    const list = join(tmp.dir, 'corpus.json');
    writeFileSync(list, JSON.stringify(['retail', 'models']));
    const listed = await resolveCorpus(corpusEntries(list, config, path, tmp.dir), config, path, tmp.dir);
    expect(listed.map((d) => d.db_id)).toEqual(['retail', 'library']);
    expect(listed[1]?.dataset.domain.entities.length).toBeGreaterThan(0);
    const folder = await resolveCorpus(corpusEntries(models, config, path, tmp.dir), config, path, tmp.dir);
    expect(folder.map((d) => [d.db_id, d.entry.kind])).toEqual([['library', 'model']]);
  });

  it('an import entry goes through importModel when given, and is refused in one line without it', async () => {
    const { config, path } = await loadConfig(undefined, REPO_ROOT);
    const list = join(tmp.dir, 'with-import.json');
    writeFileSync(list, JSON.stringify(['postgres://reader@db.example/shop', 'chinook.sqlite']));
    const entries = corpusEntries(list, config, path, tmp.dir);
    expect(entries).toEqual([
      { kind: 'import', source: 'postgres://reader@db.example/shop' },
      { kind: 'import', source: join(tmp.dir, 'chinook.sqlite') },
    ]);
    expect(await refusal(() => resolveCorpus(entries, config, path, tmp.dir))).toBe(
      '--corpus: postgres://reader@db.example/shop: importing a database into a model is not available in this build (give its E/R model as a .json file)',
    );
    const asked: string[] = [];
    const names = ['shop', 'chinook'];
    const imported = await resolveCorpus(entries, config, path, tmp.dir, {
      importModel: (source) => {
        asked.push(source);
        return {
          ...(BUILT_IN_DOMAINS['retail'] as NonNullable<(typeof BUILT_IN_DOMAINS)['retail']>),
          name: names[asked.length - 1] as string,
        };
      },
    });
    expect(asked).toEqual(entries.map((e) => (e.kind === 'import' ? e.source : '')));
    expect(imported.map((d) => d.db_id)).toEqual(['shop', 'chinook']);
  });

  it('refuses an unknown entry, an empty list, an unknown corpus and a db_id twice, naming them', async () => {
    const { config, path } = await loadConfig(undefined, REPO_ROOT);
    const list = join(tmp.dir, 'bad.json');
    writeFileSync(list, JSON.stringify(['retail', 'nowhere']));
    expect(await refusal(() => corpusEntries(list, config, path, tmp.dir))).toMatch(
      /^--corpus .*bad\.json\[1\]: "nowhere" is not a dataset of the config, a built-in domain/u,
    );
    writeFileSync(list, '[]');
    expect(await refusal(() => corpusEntries(list, config, path, tmp.dir))).toMatch(
      /bad\.json: must be a non-empty list of entries$/u,
    );
    expect(await refusal(() => corpusEntries('no_such_corpus', config, path, tmp.dir))).toMatch(
      /^--corpus: "no_such_corpus" is neither a corpus of the config \(built_in\)/u,
    );
    writeFileSync(list, JSON.stringify(['retail', 'retail']));
    const twice = corpusEntries(list, config, path, tmp.dir);
    expect(await refusal(() => resolveCorpus(twice, config, path, tmp.dir))).toBe(
      '--corpus: db_id "retail" twice (dataset retail and dataset retail): every database of a corpus needs its own name',
    );
  });
});
