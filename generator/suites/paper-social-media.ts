import {
  cmp,
  count,
  countDistinct,
  desc,
  asc,
  entity,
  exists,
  id,
  inner,
  left,
  lit,
  out,
  scalar,
  select,
} from '../query/query-builder.ts';
import type { SelectQuery } from '../query/conceptual-query.ts';
import type { SuiteQuestion } from './suite.ts';

// The fifteen social_media questions of the paper (Section 2.3). Answers return ids, as the
// paper's prompt asks; "top 50" questions rank by the count, then by id.

/** Top `n` of `alias` by a count, ids only. */
function top(base: SelectQuery, alias: string, counted: ReturnType<typeof count>, output: string, n = 50): SelectQuery {
  return {
    ...base,
    select: [out(output, id(alias))],
    groupBy: [id(alias)],
    orderBy: [desc(counted), asc(id(alias))],
    limit: n,
  };
}

export const PAPER_SOCIAL_MEDIA: readonly SuiteQuestion[] = [
  {
    id: 'q01',
    question: 'Who are the 50 creators that own the largest number of channels?',
    query: top(
      select({
        from: entity('CreatorAccount', 'c'),
        joins: [left('owns', 'c', 'forward', 'ch', 'Channel')],
        select: [],
      }),
      'c',
      count(id('ch')),
      'creator_id',
    ),
  },
  {
    id: 'q02',
    question: 'For each creator, how many total pieces of content have they produced?',
    query: select({
      from: entity('CreatorAccount', 'c'),
      joins: [left('produced_by', 'c', 'reverse', 'p', 'Content')],
      select: [out('creator_id', id('c')), out('content_count', count(id('p')))],
      groupBy: [id('c')],
    }),
  },
  {
    id: 'q03',
    question: 'Who are the 50 streamers that have hosted the most live streams?',
    query: top(
      select({
        from: entity('Streamer', 's'),
        joins: [left('hosted_by', 's', 'reverse', 'l', 'LiveStream')],
        select: [],
      }),
      's',
      count(id('l')),
      'streamer_id',
    ),
  },
  {
    id: 'q04',
    question: 'How many clips were derived from each live stream?',
    query: select({
      from: entity('LiveStream', 'l'),
      joins: [left('derived_from', 'l', 'reverse', 'c', 'Clip')],
      select: [out('live_stream_id', id('l')), out('clip_count', count(id('c')))],
      groupBy: [id('l')],
    }),
  },
  {
    id: 'q05',
    question: 'Who are the top 50 creators that have the largest number of subscribers?',
    query: top(
      select({
        from: entity('CreatorAccount', 'c'),
        joins: [left('subscribes_to', 'c', 'reverse', 's', 'Subscriber')],
        select: [],
      }),
      'c',
      count(id('s')),
      'creator_id',
    ),
  },
  {
    id: 'q06',
    question: 'For each subscriber, how many different creators are they subscribed to?',
    query: select({
      from: entity('Subscriber', 's'),
      joins: [left('subscribes_to', 's', 'forward', 'c', 'CreatorAccount')],
      select: [out('subscriber_id', id('s')), out('creator_count', countDistinct(id('c')))],
      groupBy: [id('s')],
    }),
  },
  {
    id: 'q07',
    question: 'Which 50 channels have published the most content items?',
    query: top(
      select({
        from: entity('Channel', 'ch'),
        joins: [left('published_on', 'ch', 'reverse', 'p', 'Content')],
        select: [],
      }),
      'ch',
      count(id('p')),
      'channel_id',
    ),
  },
  {
    id: 'q08',
    question: 'How many clips has each account shared?',
    query: select({
      from: entity('Account', 'a'),
      joins: [left('shared', 'a', 'forward', 'c', 'Clip')],
      select: [out('account_id', id('a')), out('clip_count', count(id('c')))],
      groupBy: [id('a')],
    }),
  },
  {
    id: 'q09',
    question: 'What are the 50 tags that are used on the largest number of content items?',
    query: top(
      select({ from: entity('Tag', 't'), joins: [left('tagged_with', 't', 'reverse', 'p', 'Content')], select: [] }),
      't',
      count(id('p')),
      'tag_id',
    ),
  },
  {
    id: 'q10',
    question: 'For each creator, how many times has content they produced been viewed by consumer accounts?',
    query: select({
      from: entity('CreatorAccount', 'c'),
      joins: [
        left('produced_by', 'c', 'reverse', 'p', 'Content'),
        left('viewed', 'p', 'reverse', 'v', 'ConsumerAccount'),
      ],
      select: [out('creator_id', id('c')), out('view_count', count(id('v')))],
      groupBy: [id('c')],
    }),
  },
  {
    id: 'q11',
    question:
      'Who are the top 50 creators that produce content that is published on the greatest number of distinct channels?',
    query: top(
      select({
        from: entity('CreatorAccount', 'c'),
        joins: [
          left('produced_by', 'c', 'reverse', 'p', 'Content'),
          left('published_on', 'p', 'forward', 'ch', 'Channel'),
        ],
        select: [],
      }),
      'c',
      countDistinct(id('ch')),
      'creator_id',
    ),
  },
  {
    id: 'q12',
    question: 'How many live streams hosted by each streamer have at least one derived clip?',
    query: select({
      from: entity('Streamer', 's'),
      joins: [
        left(
          'hosted_by',
          's',
          'reverse',
          'l',
          'LiveStream',
          exists(
            select({
              from: entity('Clip', 'c'),
              joins: [inner('derived_from', 'c', 'forward', 'src', 'LiveStream')],
              where: cmp(id('src'), '=', id('l')),
              select: [out('one', lit(1))],
            }),
          ),
        ),
      ],
      select: [out('streamer_id', id('s')), out('live_stream_count', count(id('l')))],
      groupBy: [id('s')],
    }),
  },
  {
    id: 'q13',
    question: 'Which subscribers follow creators who own more than one channel?',
    query: select({
      from: entity('Subscriber', 's'),
      where: exists(
        select({
          from: entity('CreatorAccount', 'c'),
          joins: [
            inner('subscribes_to', 'c', 'reverse', 'f', 'Subscriber'),
            inner('owns', 'c', 'forward', 'ch', 'Channel'),
          ],
          where: cmp(id('f'), '=', id('s')),
          groupBy: [id('c')],
          having: cmp(count(id('ch')), '>', lit(1)),
          select: [out('creator_id', id('c'))],
        }),
      ),
      select: [out('subscriber_id', id('s'))],
    }),
  },
  {
    id: 'q14',
    question: 'For each channel, how many live streams and how many clips have been published on it?',
    query: select({
      from: entity('Channel', 'ch'),
      select: [
        out('channel_id', id('ch')),
        out(
          'live_stream_count',
          scalar(
            select({
              from: entity('LiveStream', 'l'),
              joins: [inner('published_on', 'l', 'forward', 'lc', 'Channel')],
              where: cmp(id('lc'), '=', id('ch')),
              select: [out('n', count())],
            }),
          ),
        ),
        out(
          'clip_count',
          scalar(
            select({
              from: entity('Clip', 'k'),
              joins: [inner('published_on', 'k', 'forward', 'kc', 'Channel')],
              where: cmp(id('kc'), '=', id('ch')),
              select: [out('n', count())],
            }),
          ),
        ),
      ],
    }),
  },
  {
    id: 'q15',
    question: 'Who are the top 50 creators that have produced content tagged with 3 or more tags?',
    query: top(
      select({
        from: entity('CreatorAccount', 'c'),
        joins: [inner('produced_by', 'c', 'reverse', 'p', 'Content')],
        where: cmp(
          scalar(
            select({
              from: entity('Tag', 't'),
              joins: [inner('tagged_with', 't', 'reverse', 'tp', 'Content')],
              where: cmp(id('tp'), '=', id('p')),
              select: [out('n', count())],
            }),
          ),
          '>=',
          lit(3),
        ),
        select: [],
      }),
      'c',
      count(id('p')),
      'creator_id',
    ),
  },
];
