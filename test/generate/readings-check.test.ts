// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Expr, Join, Query } from '../../generator/query/conceptual-query.ts';
import { asc, attr, count, element, elements, entity, id, out, select } from '../../generator/query/query-builder.ts';
import { prepareBuilds, type PreparedBuilds } from '../../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../../generator/generate/query-runner.ts';
import { verifyGroup, type CheckContext } from '../../generator/generate/group-checks.ts';
import { answeringOtherwise, differingReadings } from '../../generator/generate/readings-check.ts';
import { otherReadings, type ReadingChoice } from '../../generator/questions/readings.ts';
import { writeNaturalQuestion } from '../../generator/questions/natural/natural-writer.ts';
import { generateGroups } from '../../generator/run/generate-groups.ts';
import { groupsPath, readJsonLines } from '../../generator/records/groups-file.ts';
import type { GroupRecord } from '../../generator/records/group-record.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { readFileSync } from 'node:fs';
import { tempDir } from '../helpers/build-fixtures.ts';
import { sized } from '../helpers/tiers.ts';
import { writeTemplateQuestions } from '../../generator/questions/template-writer.ts';
import { quotedNotInSql } from '../../generator/questions/quoted-labels.ts';

const STYLES = ['natural', 'precise', 'imperative', 'conversational', 'concise', 'implicit'] as const;

// Each reading a natural question could leave open gets a hand-made query whose other reading
// answers otherwise on the real instances (PGlite): with the writer's words taken away it is
// caught, and with them the question has one reading.
const domain = BUILT_IN_DOMAINS['social_media']!;
const index = indexDomain(domain);
let db: Database;
let builds: PreparedBuilds;
let ctx: CheckContext;
const tmp = tempDir('readings');

beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
  builds = await prepareBuilds({
    dataset: 'social_media',
    domain,
    variants: 'full_sti,full_cti,full_normalized',
    scale: 'tiny',
    seed: 1,
    db,
    out: tmp.dir,
  });
  ctx = { index, variants: builds.variants, reference: 'full_normalized', runner: createQueryRunner([db], 20_000) };
}, 120_000);

afterAll(async () => {
  await db?.close();
  tmp.remove();
});

/** The choices whose other reading answers otherwise when the question says nothing of them. */
async function caughtUnsaid(q: Query): Promise<ReadingChoice[]> {
  const verified = await verifyGroup(q, ctx);
  return (await answeringOtherwise(otherReadings(index, q, new Set()), verified, ctx)).map((d) => d.reading.choice);
}

/** "videos produced by creators": Content c joined to its creator p. */
const producedBy: Join = {
  kind: 'relationship',
  type: 'inner',
  relationship: 'produced_by',
  from: 'c',
  direction: 'forward',
  alias: 'p',
  entity: 'CreatorAccount',
};
const year: Expr = { kind: 'extract', field: 'year', arg: attr('c', 'created_at') };
const examples: { choice: ReadingChoice; words: RegExp | undefined; query: Query }[] = [
  {
    // "usernames of subscribers with their watch-history timestamps": the ones with none kept or not.
    choice: 'outer-join',
    words: /Subscribers with no watch-history timestamps are left out\./u,
    query: select({
      from: entity('Subscriber', 's'),
      select: [out('username', attr('s', 'username')), out('watched_at', element('w'))],
      joins: [elements('inner', 's', 'watch_history_timestamps', 'w')],
    }),
  },
  {
    // "usernames of accounts": every account, or the plain ones only.
    choice: 'subtypes',
    words: /Accounts include creators and viewers\./u,
    query: select({ from: entity('Account', 'a'), select: [out('username', attr('a', 'username'))] }),
  },
  {
    // "videos whose title contains 'the'": "The Picture of Dorian Gray" matches only without case.
    choice: 'case',
    words: /Text matching is case-sensitive\./u,
    query: select({
      from: entity('Content', 'c'),
      select: [out('n', count())],
      where: { kind: 'like', expr: attr('c', 'title'), pattern: '%the%' },
    }),
  },
  {
    // "the titles of the 3 earliest-year videos, ties broken by id": which id first.
    choice: 'ties',
    words: /Ties are broken by/u,
    query: select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title')), out('year', year)],
      orderBy: [asc(year), asc(id('c'))],
      limit: 3,
    }),
  },
];

describe('readings by execution', () => {
  for (const ex of examples) {
    it(`catches the other reading of ${ex.choice} when the words leave it open, and the writer's words settle it`, async () => {
      expect(await caughtUnsaid(ex.query)).toContain(ex.choice);
      const w = writeNaturalQuestion(index, ex.query, 0, 'g');
      expect(w.evidence).toMatch(ex.words as RegExp);
      const verified = await verifyGroup(ex.query, ctx);
      expect((await differingReadings(ex.query, 'g', verified, ctx)).map((d) => d.reading.choice)).not.toContain(
        ex.choice,
      );
    });
  }

  it('catches one row per video read as one row per title (grouping) where the words leave it open, and "for each video" settles it', async () => {
    // Titles repeat among the tiny instance's videos: per video and per title differ.
    const perVideo = select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title')), out('quality_options', count(element('o')))],
      joins: [elements('left', 'c', 'quality_opts', 'o')],
      groupBy: [id('c'), attr('c', 'title')],
    });
    expect(await caughtUnsaid(perVideo)).toContain('grouping');
    const w = writeNaturalQuestion(index, perVideo, 0, 'g');
    expect(w.question).toMatch(/for each video/iu);
    const verified = await verifyGroup(perVideo, ctx);
    expect((await differingReadings(perVideo, 'g', verified, ctx)).map((d) => d.reading.choice)).not.toContain(
      'grouping',
    );
    // "Which video has the most quality options? Give its title and number": the video, or the title?
    const top = select({
      ...perVideo,
      orderBy: [{ expr: { kind: 'output', name: 'quality_options' }, direction: 'desc' }, asc(id('c'))],
      limit: 1,
    });
    const found = await differingReadings(top, 'g', await verifyGroup(top, ctx), ctx);
    const reading = found.find((d) => d.reading.choice === 'grouping')?.reading;
    expect(writeNaturalQuestion(index, top, 0, 'g').question, JSON.stringify(found)).not.toMatch(/for each video/iu);
    // The other reading is a real query with another answer: one row per title.
    expect(reading?.query.kind === 'select' && reading.query.groupBy).toEqual([attr('c', 'title')]);
  });

  it('takes the kinds a query names (a kind column, an isA test) as said for that alias alone, and the writer scopes the others', async () => {
    const among = ['Streamer', 'Subscriber', 'CreatorAccount', 'ConsumerAccount', 'Account'];
    const withKind = select({
      from: entity('Account', 'a'),
      select: [out('username', attr('a', 'username')), out('kind', { kind: 'classOf', alias: 'a', among })],
    });
    const subtypeKeys = (q: Query) =>
      otherReadings(index, q, new Set())
        .filter((r) => r.choice === 'subtypes')
        .map((r) => r.key);
    expect(subtypeKeys(withKind)).toEqual([]);
    expect(
      subtypeKeys(select({ from: entity('Account', 'a'), select: [out('username', attr('a', 'username'))] })),
    ).toEqual(['subtypes:Account']);
    // "titles of videos produced by creators that are not streamers": the creators' kinds are said, the videos' are not.
    const notStreamers = select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title')), out('username', attr('p', 'username'))],
      joins: [producedBy],
      where: { kind: 'isA', alias: 'p', entity: 'Streamer', negated: true },
    });
    expect(subtypeKeys(notStreamers)).toEqual(['subtypes:Content']);
    expect(await caughtUnsaid(notStreamers)).toContain('subtypes');
    const w = writeNaturalQuestion(index, notStreamers, 0, 'g');
    expect(w.evidence).toMatch(/Videos include live videos and recorded videos\./u);
    const verified = await verifyGroup(notStreamers, ctx);
    expect((await differingReadings(notStreamers, 'g', verified, ctx)).map((d) => d.reading.choice)).not.toContain(
      'subtypes',
    );
  });

  it('builds a path reading through another relationship between the same kinds, settled once the verb is said', () => {
    const twoLinks = indexDomain({
      ...domain,
      relationships: [
        ...domain.relationships,
        {
          ...domain.relationships.find((r) => r.name === 'produced_by')!,
          name: 'edited_by',
          lexicon: { forward: 'edited by', reverse: 'edited' },
        },
      ],
    });
    const q = select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title')), out('username', attr('p', 'username'))],
      joins: [producedBy],
    });
    expect(
      otherReadings(twoLinks, q, new Set())
        .filter((r) => r.choice === 'path')
        .map((r) => r.detail),
    ).toEqual(['p through edited_by instead of produced_by']);
    expect(otherReadings(twoLinks, q, new Set(['path:produced_by'])).filter((r) => r.choice === 'path')).toEqual([]);
  });
});

// Generated groups: none of their natural questions has another reading with another answer.
// A few per built-in domain by default; EQUISQL_ACCEPTANCE=1 asks 1,000 a domain.
const perDomain = sized('EQUISQL_READINGS_GROUPS', 25, 1000);
describe('generated groups have one reading', () => {
  for (const dataset of Object.keys(BUILT_IN_DOMAINS)) {
    it(`${perDomain} ${dataset} groups`, async () => {
      const d = BUILT_IN_DOMAINS[dataset]!;
      const ix = indexDomain(d);
      const dir = tempDir(`readings-${dataset}`);
      const gdb = await openDatabase({ kind: 'pglite' });
      try {
        const b = await prepareBuilds({
          dataset,
          domain: d,
          variants: 'full_normalized,full_sti',
          scale: 'tiny',
          seed: 7,
          db: gdb,
          out: dir.dir,
        });
        const runner = createQueryRunner([gdb], 20_000);
        const grammar = parseGrammar(
          readFileSync(new URL('../../grammars/spider.pcfg', import.meta.url), 'utf8'),
          'spider.pcfg',
        );
        await generateGroups({
          dataset,
          out: dir.dir,
          index: ix,
          instance: b.instance,
          instanceHashes: { main: b.main.instance_hash, ...(b.edge ? { edge: b.edge.instance_hash } : {}) },
          variants: b.variants,
          runner,
          grammar,
          seed: 7,
          groups: perDomain,
          settings: {},
        });
        const groups = readJsonLines<GroupRecord>(groupsPath(dir.dir, dataset), false);
        expect(groups.length).toBe(perDomain);
        const gctx: CheckContext = { index: ix, variants: b.variants, reference: groups[0]!.reference_variant, runner };
        for (const g of groups) {
          const main = { result_hash: g.variants[g.reference_variant]!.result_hash, row_count: 0 };
          const verified = await verifyGroup(g.query, gctx);
          expect(verified.main.result_hash).toBe(main.result_hash);
          expect(
            (await differingReadings(g.query, g.group_id, verified, gctx)).map(
              (x) => `${x.reading.choice}: ${x.reading.detail}`,
            ),
          ).toEqual([]);
          // Every quoted value of every style's question and evidence is in the group's SQL, verbatim.
          const sqls = Object.values(g.variants).map((v) => v.sql);
          for (const w of writeTemplateQuestions(
            ix,
            g.query,
            STYLES.map((style) => ({ style, paraphrase: 0 })),
            g.group_id,
          ))
            expect(quotedNotInSql(w.question, w.evidence, sqls), w.question).toEqual([]);
        }
      } finally {
        await gdb.close();
        dir.remove();
      }
    }, 600_000);
  }
});
