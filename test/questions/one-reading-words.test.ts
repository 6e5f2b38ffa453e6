import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Expr } from '../../generator/query/conceptual-query.ts';
import {
  agg,
  asc,
  attr,
  classOf,
  cmp,
  count,
  countDistinct,
  desc,
  entity,
  id,
  inner,
  lit,
  or,
  out,
  select,
} from '../../generator/query/query-builder.ts';
import { writeNaturalQuestion } from '../../generator/questions/natural/natural-writer.ts';
import { quotedNotInSql, quotedValues } from '../../generator/questions/quoted-labels.ts';

const index = indexDomain(BUILT_IN_DOMAINS['social_media']!);
const year: Expr = { kind: 'extract', field: 'year', arg: attr('a', 'created_at') };

describe('output columns stated', () => {
  it('asks for the shown year beside the count of the earliest sign-up year, in every paraphrase', () => {
    const q = select({
      from: entity('Account', 'a'),
      select: [out('year', year), out('accounts', count())],
      groupBy: [year],
      orderBy: [asc(year)],
      limit: 1,
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g');
      // The year is asked for as an output, not only as the group the count is of.
      expect(w.question).toMatch(/^Show the earliest sign-up year|Show the sign-up year too\.$/u);
    }
  });

  it('asks only for the count when only the count is shown', () => {
    const q = select({
      from: entity('Account', 'a'),
      select: [out('accounts', count())],
      groupBy: [year],
      orderBy: [asc(year)],
      limit: 1,
    });
    expect(writeNaturalQuestion(index, q, 0, 'g').question).not.toMatch(/too\.$/u);
  });
});

describe('groups shown by their keys alone', () => {
  it('asks for the keys HAVING picks, every paraphrase a whole sentence', () => {
    const channels: Expr = attr('c', 'created_at');
    const yearOf: Expr = { kind: 'extract', field: 'year', arg: channels };
    const q = select({
      from: entity('Channel', 'c'),
      select: [out('year', yearOf)],
      groupBy: [yearOf],
      having: cmp(count(), '=', lit(12)),
    });
    const seen = new Set<string>();
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g');
      expect(w.question).toMatch(/creation years .*exactly 12 channels[?.]$/u);
      expect(w.question).not.toMatch(/\bthe of\b|what is the\s/iu);
      seen.add(w.question);
    }
    expect(seen.size).toBe(3);
  });
});

describe('groups of joined objects', () => {
  it('says "for each creator", not the creator id it does not show', () => {
    const q = select({
      from: entity('Channel', 'ch'),
      joins: [inner('owns', 'ch', 'reverse', 'c', 'CreatorAccount')],
      select: [out('username', attr('c', 'username')), out('email', attr('c', 'email')), out('channels', count())],
      groupBy: [id('c')],
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g');
      expect(w.question).toMatch(/each creator\b/u);
      expect(w.question).not.toMatch(/\bid\b/u);
    }
  });
});

describe('events a date names', () => {
  it('says "registered before …" and "created in the last 2 years" where the model names the event, the window in the evidence', () => {
    const before = select({
      from: entity('Account', 'a'),
      select: [out('username', attr('a', 'username'))],
      where: cmp(attr('a', 'created_at'), '<', lit('2024-05-01')),
    });
    expect(writeNaturalQuestion(index, before, 0, 'g').question).toMatch(/accounts registered before May 2024/u);
    const window = select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title'))],
      where: cmp(attr('c', 'created_at'), '>=', {
        kind: 'dateShift',
        arg: lit('2025-12-30'),
        amount: -2,
        unit: 'year',
      } as unknown as Expr),
    });
    const w = writeNaturalQuestion(index, window, 0, 'g');
    expect(w.question).toMatch(/videos created in the last 2 years/u);
    expect(w.evidence).toMatch(
      /The last 2 years means on or after December 30, 2023, the 2 years before December 30, 2025\./u,
    );
    // A watch-history timestamp names no event: it keeps its noun.
    const viewers = select({
      from: entity('ConsumerAccount', 'ca'),
      joins: [{ kind: 'elements', type: 'inner', of: 'ca', attribute: 'watch_history_timestamps', alias: 'w' }],
      select: [out('username', attr('ca', 'username'))],
      where: cmp({ kind: 'element', alias: 'w' } as unknown as Expr, '<', lit('2024-05-01')),
    });
    expect(writeNaturalQuestion(index, viewers, 0, 'g').question).not.toMatch(/registered|created/u);
  });
});

describe('counts of different values', () => {
  it("names a partner's different values in plain words, not in the precise style's", () => {
    const q = select({
      from: entity('CreatorAccount', 'ca'),
      joins: [inner('produced_by', 'ca', 'reverse', 'c', 'Content')],
      select: [out('username', attr('ca', 'username')), out('titles', countDistinct(attr('c', 'title')))],
      groupBy: [id('ca'), attr('ca', 'username')],
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g');
      expect(w.question).toContain('number of different titles of videos produced by them');
      expect(w.question).not.toMatch(/known values/u);
    }
    // Ranked by it, the words still count different titles, not titles.
    const top = select({ ...q, orderBy: [desc('titles')], limit: 1 });
    for (let p = 0; p < 3; p++)
      expect(writeNaturalQuestion(index, top, p, 'g').question).toMatch(/most different titles/u);
  });

  it('counts different kinds by name when no object is of two, and lists the kinds in the evidence', () => {
    const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
    const kinds = ['Apparel', 'Accessories', 'Electronics', 'Media', 'Software'];
    const q = select({
      from: entity('Employee', 'e'),
      joins: [inner('recommends', 'e', 'forward', 'p', 'Product')],
      select: [out('employee', id('e')), out('types', countDistinct(classOf('p', kinds)))],
      groupBy: [id('e')],
    });
    const w = writeNaturalQuestion(retail, q, 0, 'g');
    expect(w.question).toContain('number of different product types of products recommended by them');
    // Every product is of one of the five: no product goes without a type.
    expect(w.evidence).toContain('The product types are clothing items, accessories, devices, media items, and apps.');
    // Two of the five: the others have no type, and the evidence says so.
    const two = select({ ...q, select: [out('types', countDistinct(classOf('p', ['Apparel', 'Electronics'])))] });
    expect(writeNaturalQuestion(retail, two, 0, 'g').evidence).toContain(
      'The product types are clothing items and devices; other products have no type.',
    );
    // Where a product can be of two kinds listed, which one counts is the first that applies: not said in passing.
    const overlapping = select({
      ...q,
      select: [out('types', countDistinct(classOf('p', ['PhysicalProduct', 'Apparel'])))],
    });
    expect(writeNaturalQuestion(retail, overlapping, 0, 'g').question).not.toContain('different product types');
  });
});

describe('labels quoted are labels returned', () => {
  it('finds each quoted value of question and evidence in the SQL, quotes doubled, and names the one it cannot', () => {
    expect(quotedValues('Titled "Emma" or "Dune"')).toEqual(['Emma', 'Dune']);
    expect(
      quotedNotInSql('Clips titled "O\'Brien"', 'Kind is "LiveStream".', [
        "SELECT 1 WHERE t = 'O''Brien' AND k = 'LiveStream'",
      ]),
    ).toEqual([]);
    // The precise style once quoted "live stream" where the SQL writes 'LiveStream'.
    expect(
      quotedNotInSql('Rows whose kind is "live stream"', '', [
        "SELECT c.title FROM content AS c WHERE c.type = 'LiveStream'",
      ]),
    ).toEqual(['live stream']);
  });
});

describe('group conditions stated', () => {
  it('says each part of a group condition joined by OR, never a condition it does not give', () => {
    const q = select({
      from: entity('Content', 'c'),
      select: [out('year', { kind: 'extract', field: 'year', arg: attr('c', 'created_at') })],
      groupBy: [{ kind: 'extract', field: 'year', arg: attr('c', 'created_at') }],
      having: or(cmp(count(), '>', lit(130)), cmp(agg('min', attr('c', 'duration')), '=', lit(59))),
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g');
      const said = `${w.question} ${w.evidence}`;
      expect(said, said).toMatch(/over 130 or .*59/u);
      expect(said).not.toMatch(/condition given/u);
    }
  });
});

describe('partners of a subquery', () => {
  it('introduces a partner before a condition names it', () => {
    // Videos not produced by any creator that a subscriber who likes kids' shows subscribes to.
    const q = select({
      from: entity('Content', 'c'),
      joins: [inner('viewed', 'c', 'reverse', 'ca', 'ConsumerAccount')],
      select: [out('username', attr('ca', 'username'))],
      where: {
        kind: 'inQuery',
        expr: id('c'),
        negated: true,
        query: select({
          from: entity('CreatorAccount', 'ca2'),
          joins: [
            inner('produced_by', 'ca2', 'reverse', 'c2', 'Content'),
            inner('subscribes_to', 'ca2', 'reverse', 's', 'Subscriber'),
          ],
          select: [out('content_id', id('c2'))],
          where: cmp(attr('s', 'preferences'), '=', lit("kids' shows")),
        }),
      },
    });
    const w = writeNaturalQuestion(index, q, 0, 'g');
    expect(w.question).toMatch(
      /not produced by any creator subscribed to by a subscriber, where the preference note of the subscriber is "kids' shows"/u,
    );
  });
});

describe('ordinals across query levels', () => {
  const videos = (inner: Parameters<typeof select>[0]['where']) =>
    select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title'))],
      where: cmp(attr('c', 'duration'), '>', {
        kind: 'scalarSubquery',
        query: select({
          from: entity('Content', 'c2'),
          select: [out('avg', agg('avg', attr('c2', 'duration')))],
          ...(inner ? { where: inner } : {}),
        }),
      }),
    });

  it('drops them when the subquery stands alone: videos above the average of all videos', () => {
    const w = writeNaturalQuestion(index, videos(undefined), 0, 'g');
    expect(w.question).toMatch(/all videos/u);
    expect(w.question).not.toMatch(/\b(first|second) video/u);
  });

  it('keeps them when the subquery is said in the careful words', () => {
    // Two hops from the base: not "the lowest duration of all videos …", so "the video" would be either.
    const q = select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title'))],
      where: cmp(attr('c', 'duration'), '>', {
        kind: 'scalarSubquery',
        query: select({
          from: entity('Content', 'c2'),
          joins: [
            inner('viewed', 'c2', 'reverse', 'ca', 'ConsumerAccount'),
            inner('shared', 'ca', 'forward', 'cl', 'Clip'),
          ],
          select: [out('m', agg('min', attr('c2', 'duration')))],
        }),
      }),
    });
    expect(writeNaturalQuestion(index, q, 0, 'g').question).toMatch(/second (video|content item)/u);
  });

  it('keeps them when the subquery has a condition of its own', () => {
    const w = writeNaturalQuestion(index, videos(cmp(attr('c2', 'title'), '=', lit('Watchmen'))), 0, 'g');
    expect(w.question).toMatch(/second (video|content item)/u);
  });
});

describe('top rows per group over values that may be missing', () => {
  it('says the top per group in the question and where missing values go in the evidence', () => {
    const q = select({
      from: entity('ConsumerAccount', 'ca'),
      select: [out('username', attr('ca', 'username'))],
      qualify: {
        window: {
          kind: 'window',
          fn: 'row_number',
          partitionBy: [attr('ca', 'preferences')],
          orderBy: [
            { expr: attr('ca', 'age'), direction: 'desc' },
            { expr: id('ca'), direction: 'asc' },
          ],
        },
        op: '<=',
        value: 2,
      },
    });
    const w = writeNaturalQuestion(index, q, 0, 'g');
    // The model's adjective says the order: "the 2 oldest viewers for each preference note".
    expect(w.question).toMatch(/the 2 oldest viewers for each preference note/u);
    expect(w.evidence).toMatch(/Oldest refers to the highest age\./u);
    expect(w.evidence).toMatch(/with no preference note form a group of their own/u);
    expect(w.evidence).toMatch(/Within each preference note, viewers with no age come first/u);
  });
});

describe('an aggregate of a partner', () => {
  it('reads as one among the rows, not as one "of all" of them', () => {
    // The earliest creation time of the channels of creators that own channels.
    const q = select({
      from: entity('CreatorAccount', 'ca'),
      joins: [inner('owns', 'ca', 'forward', 'ch', 'Channel')],
      select: [out('earliest', agg('min', attr('ch', 'created_at')))],
    });
    const w = writeNaturalQuestion(index, q, 0, 'g');
    expect(w.question).toMatch(/among creators that own channels/iu);
    expect(w.question).not.toMatch(/of channels of creators/u);
  });
});

describe('a comparison with an aggregate of every object and its partners', () => {
  const viewers = (fn: 'min' | 'avg') =>
    select({
      from: entity('ConsumerAccount', 'ca'),
      select: [out('username', attr('ca', 'username'))],
      where: cmp(attr('ca', 'age'), '=', {
        kind: 'scalarSubquery',
        query: select({
          from: entity('ConsumerAccount', 'ca2'),
          joins: [inner('viewed', 'ca2', 'forward', 'c2', 'Content')],
          select: [out('m', agg(fn, attr('ca2', 'age')))],
        }),
      }),
    });

  it('names the partners after "all"', () => {
    const w = writeNaturalQuestion(index, viewers('min'), 0, 'g');
    expect(w.question).toMatch(/the lowest age of all viewers that viewed videos/u);
  });

  it('does not where the join repeats the rows an average weighs', () => {
    // Each viewer's age counts once per video viewed: not "the average age of all viewers that viewed videos".
    expect(writeNaturalQuestion(index, viewers('avg'), 0, 'g').question).not.toMatch(/of all viewers/u);
  });
});

describe('a top N per object', () => {
  it('names the object, not its id', () => {
    // The 3 earliest sign-ups among the accounts that shared each clip.
    const q = select({
      from: entity('Clip', 'c'),
      joins: [inner('shared', 'c', 'reverse', 'a', 'Account')],
      select: [out('title', attr('c', 'title'))],
      qualify: {
        window: {
          kind: 'window',
          fn: 'rank',
          partitionBy: [id('c')],
          orderBy: [{ expr: attr('a', 'created_at'), direction: 'asc' }],
        },
        op: '<=',
        value: 3,
      },
    });
    const w = writeNaturalQuestion(index, q, 0, 'g');
    expect(w.question).toMatch(/keeping for each clip the 3 /u);
  });
});

describe('a count of one', () => {
  it('takes the singular', () => {
    // Resolutions with exactly one clip, and the longest of them.
    const q = select({
      from: entity('Clip', 'c'),
      select: [out('resolution', attr('c', 'resolution')), out('m', agg('max', attr('c', 'duration')))],
      groupBy: [attr('c', 'resolution')],
      having: cmp(count(), '=', lit(1)),
    });
    const w = writeNaturalQuestion(index, q, 0, 'g');
    expect(w.question).toMatch(/with exactly 1 clip\b/u);
    expect(w.question).not.toMatch(/\b1 clips\b/u);
  });
});

describe('conditions beside a relative clause', () => {
  it('puts a condition that ends on a value before the clause, and joins a "with" or "whose" to it with "and"', () => {
    const viewers = (where: Parameters<typeof select>[0]['where']) =>
      select({
        from: entity('ConsumerAccount', 'ca'),
        joins: [inner('viewed', 'ca', 'forward', 'c', 'Content')],
        select: [out('viewers', agg('count', id('ca'), true))],
        where,
      });
    // "How many viewers that viewed videos, older than 35 are there?" read as a misplaced modifier.
    const older = writeNaturalQuestion(index, viewers(cmp(attr('ca', 'age'), '>', lit(35))), 0, 'g').question;
    expect(older).toMatch(/viewers older than 35 that viewed videos/u);
    expect(older).not.toMatch(/videos, older/u);
    const named = writeNaturalQuestion(
      index,
      viewers({ kind: 'like', expr: attr('ca', 'username'), pattern: 'Jo%' }),
      0,
      'g',
    ).question;
    expect(named).toMatch(/viewers that viewed videos and whose username starts with "Jo"/u);
  });
});

describe('groups kept by their number of rows', () => {
  it('asks which groups have so many rows and how many each has, in every paraphrase', () => {
    const yearOf: Expr = { kind: 'extract', field: 'year', arg: attr('c', 'created_at') };
    const q = select({
      from: entity('Channel', 'c'),
      select: [out('year', yearOf), out('channels', count())],
      groupBy: [yearOf],
      having: cmp(count(), '>=', lit(40)),
    });
    const seen = new Set<string>();
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g').question;
      // Not "For each creation year with at least 40 channels, how many channels are there?"
      expect(w).toMatch(/creation years (that have|have|with) at least 40 channels/u);
      expect(w).toMatch(/each (has|have)[.?]$/u);
      seen.add(w);
    }
    expect(seen.size).toBe(3);
    // A count that filters its rows is not the groups' number of rows: HAVING says its own words.
    const filtered = select({
      ...q,
      having: cmp(
        { kind: 'aggregate', fn: 'count', filter: cmp(attr('c', 'name'), '=', lit('Daily')) } as Expr,
        '>=',
        lit(2),
      ),
    });
    expect(writeNaturalQuestion(index, filtered, 0, 'g').question).not.toMatch(/have at least 2 channels/u);
  });
});

describe('the group with the most or fewest rows', () => {
  it('names the grouped objects once: "the creator with the fewest videos"', () => {
    const q = select({
      from: entity('Content', 'c'),
      joins: [inner('produced_by', 'c', 'forward', 'ca', 'CreatorAccount')],
      select: [out('username', attr('ca', 'username')), out('videos', count())],
      groupBy: [id('ca')],
      orderBy: [asc('videos'), asc('username')],
      limit: 1,
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g').question;
      expect(w).toMatch(/creator (with|has) the fewest videos( and|\?)/u);
      expect(w).not.toMatch(/produced by creators/u);
    }
  });
});

describe('plain words for a negation and a grouped partner', () => {
  const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
  it('says NOT (rating = 4) as "a rating other than 4"', () => {
    const q = select({
      from: entity('Review', 'r'),
      select: [out('reviews', count())],
      where: { kind: 'not', arg: cmp(attr('r', 'rating'), '=', lit(4)) },
    });
    const w = writeNaturalQuestion(retail, q, 0, 'g').question;
    expect(w).toMatch(/reviews with a rating other than 4/u);
    expect(w).not.toMatch(/other than those/u);
  });

  it('counts the clips of each live stream without naming live streams twice', () => {
    const q = select({
      from: entity('Clip', 'c'),
      joins: [inner('derived_from', 'c', 'forward', 'ls', 'LiveStream')],
      select: [out('title', attr('ls', 'title')), out('clips', count())],
      groupBy: [id('ls')],
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g').question;
      expect(w).toMatch(/number of clips/u);
      expect(w).toMatch(/each live stream/u);
      expect(w).not.toMatch(/derived from live streams/u);
    }
  });
});

describe('a count over the values of a list', () => {
  const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
  const platforms = { kind: 'elements', type: 'inner', of: 's', attribute: 'platforms', alias: 'p' } as const;
  const format = attr('s', 'format');
  it('counts the values, each once for each object that lists it, not the objects "with" them', () => {
    const top = select({
      from: entity('Software', 's'),
      joins: [platforms],
      select: [out('format', format), out('n', count())],
      groupBy: [format],
      orderBy: [asc('n'), asc('format')],
      limit: 1,
    });
    const flat = select({
      from: entity('Software', 's'),
      joins: [platforms],
      select: [out('n', count())],
      where: cmp(attr('s', 'price'), '<', lit(50)),
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(retail, top, p, 'g');
      expect(w.question).toMatch(/fewest supported platforms of apps/u);
      expect(w.question).toMatch(/number of supported platforms\./u);
      expect(w.evidence).toContain('A supported platform counts once for each app that has it.');
      const c = writeNaturalQuestion(retail, flat, p, 'g');
      expect(c.question).toMatch(/supported platforms of apps cheaper than \$50/u);
      expect(c.question).not.toMatch(/apps .*with supported platforms/u);
    }
    // Where the list is shown, the objects are what is counted, and the repeats are said.
    const shown = select({
      ...top,
      groupBy: [format, { kind: 'element', alias: 'p' }],
      select: [out('format', format), out('platform', { kind: 'element', alias: 'p' }), out('n', count())],
    });
    expect(writeNaturalQuestion(retail, shown, 0, 'g').question).not.toMatch(/supported platforms of apps/u);
  });
});

describe('names of derived labels', () => {
  const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
  it('calls a yes-or-no CASE an indicator and a high-or-low band a level, each defined in the evidence', () => {
    const q = select({
      from: entity('Software', 's'),
      select: [
        out('name', attr('s', 'name')),
        out('is_format', {
          kind: 'simpleCase',
          operand: attr('s', 'format'),
          whens: [{ value: 'apk', then: lit('yes') }],
          else: lit('no'),
        }),
        out('band', {
          kind: 'case',
          whens: [{ when: cmp(attr('s', 'quantity'), '>=', lit(250)), then: lit('high') }],
          else: lit('low'),
        }),
      ],
    });
    const w = writeNaturalQuestion(retail, q, 0, 'g');
    expect(w.question).toMatch(/apk indicator/u);
    expect(w.question).toMatch(/stock quantity level/u);
    expect(w.question).not.toMatch(/category/u);
    expect(w.evidence).toContain('Apk indicator is "yes" for apps in apk format and "no" otherwise.');
    expect(w.evidence).toMatch(
      /Stock quantity level is "high" for apps with at least 250 in stock and "low" otherwise\./u,
    );
  });
});

describe('objects or keys chosen by their number of rows', () => {
  it('asks for the values of creators with exactly 5 videos as a plain list', () => {
    const q = select({
      from: entity('Content', 'c'),
      joins: [inner('produced_by', 'c', 'forward', 'ca', 'CreatorAccount')],
      select: [out('u', attr('ca', 'username')), out('b', attr('ca', 'bio'))],
      groupBy: [id('ca')],
      having: cmp(count(), '=', lit(5)),
    });
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g');
      expect(w.question).toMatch(/usernames and bios of creators with exactly 5 videos[?.]$/u);
      expect(w.question).not.toMatch(/for each/iu);
    }
  });

  it('asks which keys have so many rows', () => {
    const yearOf: Expr = { kind: 'extract', field: 'year', arg: attr('c', 'created_at') };
    const q = select({
      from: entity('Channel', 'c'),
      select: [out('year', yearOf)],
      groupBy: [yearOf],
      having: cmp(count(), '>=', lit(40)),
    });
    const seen = new Set<string>();
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, q, p, 'g').question;
      expect(w).toMatch(/creation years (have|with|that have) at least 40 channels[?.]$/u);
      expect(w).not.toMatch(/are there/u);
      seen.add(w);
    }
    expect(seen.size).toBe(3);
  });
});

describe('conditions in the order a person says them', () => {
  const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
  it('says ages as "aged", one or several, and puts a "whose" clause after the other conditions', () => {
    const ages = select({
      from: entity('ConsumerAccount', 'ca'),
      select: [out('n', count())],
      where: { kind: 'in', expr: attr('ca', 'age'), values: [72, 81, 86] },
    });
    expect(writeNaturalQuestion(index, ages, 0, 'g').question).toMatch(/viewers aged 72, 81, or 86\b/u);
    const devices = select({
      from: entity('Electronics', 'e'),
      select: [out('name', attr('e', 'name'))],
      where: {
        kind: 'and',
        args: [
          { kind: 'like', expr: attr('e', 'name'), pattern: '%Air%' },
          cmp(attr('e', 'material'), '=', lit('Steel')),
        ],
      },
    });
    expect(writeNaturalQuestion(retail, devices, 0, 'g').question).toMatch(
      /devices made of Steel and whose name contains "Air"|devices made of Steel whose name contains "Air"/u,
    );
  });
});

describe('a partner of one kind', () => {
  it('names a partner by the kind a condition keeps: "orders that contain apps with the tag eco"', () => {
    const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
    const q = select({
      from: entity('DigitalProduct', 'dp'),
      joins: [
        { kind: 'elements', type: 'inner', of: 'dp', attribute: 'tags', alias: 't' },
        inner('contains', 'dp', 'reverse', 'co', 'CustOrder'),
      ],
      select: [out('order_id', id('co'))],
      where: {
        kind: 'and',
        args: [cmp({ kind: 'element', alias: 't' }, '=', lit('eco')), { kind: 'isA', alias: 'dp', entity: 'Software' }],
      },
    });
    const w = writeNaturalQuestion(retail, q, 0, 'g');
    expect(w.question).toMatch(/orders that contain apps with the tag eco/u);
    expect(w.question).not.toMatch(/that are apps/u);
    expect(w.evidence).toMatch(/once for each app and tag/u);
    // The question names the kind; the evidence still names the entity the rows range over.
    expect(w.evidence).toMatch(/Each row starts from a digital product\./u);
  });
});

describe('rows kept to one kind', () => {
  it('names them by the kind: "live videos whose title contains …"', () => {
    const q = select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title'))],
      where: {
        kind: 'and',
        args: [
          { kind: 'like', expr: attr('c', 'title'), pattern: '%Thousand%' },
          { kind: 'isA', alias: 'c', entity: 'LiveContent' },
        ],
      },
    });
    const w = writeNaturalQuestion(index, q, 0, 'g');
    expect(w.question).toMatch(/titles of live videos whose title contains "Thousand"/u);
    expect(w.question).not.toMatch(/that are live videos/u);
  });
});
