import { attr, defineDomain, noun } from '../er-model/define-domain.ts';

/**
 * The social-media domain of the reference paper (its Figure 2 and Section 2.3): accounts
 * and content in two disjoint, partial hierarchies, plus channels and tags. Counts at
 * `paper` scale follow Section 3.5: about 2,843 creators, 1,480 streamers, 2,000 live
 * streams and 2,000 further live-content items.
 */
export const socialMedia = defineDomain({
  name: 'social_media',
  description: 'Creators, consumers and streamers; live and recorded content; channels and tags.',
  entities: [
    {
      name: 'Account',
      specialization: { disjoint: true, total: false },
      lexicon: noun('account'),
      counts: { tiny: 60, small: 1000, paper: 10000, large: 100000 },
      attributes: [
        attr.text('username', {
          role: { kind: 'name' },
          lexicon: noun('username'),
          hints: { faker: 'internet.username', unique: true },
        }),
        attr.text('email', {
          role: { kind: 'contact' },
          lexicon: noun('email address', 'email addresses'),
          hints: { faker: 'internet.email', unique: true },
        }),
        attr.timestamptz('created_at', {
          role: { kind: 'time' },
          lexicon: { ...noun('sign-up time'), high: 'recent', low: 'early', event: 'registered' },
          hints: { min: '2019-01-01', max: '2025-12-31' },
        }),
      ],
    },
    {
      name: 'CreatorAccount',
      parent: 'Account',
      specialization: { disjoint: true, total: false },
      lexicon: noun('creator'),
      fraction: 0.2843,
      attributes: [
        attr.text('bio', {
          optional: true,
          role: { kind: 'description' },
          lexicon: noun('bio'),
          hints: { faker: 'person.bio', nullRate: 0.25 },
        }),
        attr.boolean('verified', {
          role: { kind: 'flag' },
          lexicon: { ...noun('verification status', 'verification statuses'), adjective: 'verified' },
        }),
      ],
    },
    {
      name: 'Streamer',
      parent: 'CreatorAccount',
      lexicon: noun('streamer'),
      fraction: 0.52,
      attributes: [
        attr.enum('platform', ['twitch', 'youtube', 'kick', 'facebook'], {
          role: { kind: 'category' },
          lexicon: noun('streaming platform'),
        }),
        attr.integer('avg_viewers', {
          role: { kind: 'measure', unit: 'viewer', additive: false },
          lexicon: { ...noun('average viewer count'), high: 'popular', low: 'unpopular', unit: 'viewers' },
          hints: { min: 0, max: 50000 },
        }),
      ],
    },
    {
      name: 'ConsumerAccount',
      parent: 'Account',
      specialization: { disjoint: true, total: false },
      lexicon: { ...noun('consumer'), everyday: noun('viewer') },
      fraction: 0.55,
      attributes: [
        attr.text('preferences', {
          optional: true,
          role: { kind: 'category' },
          lexicon: noun('preference note'),
          hints: {
            pool: ['gaming', 'music', 'cooking', 'travel', 'fitness', 'tech', "kids' shows", 'animé'],
            nullRate: 0.3,
          },
        }),
        attr.integer('age', {
          optional: true,
          role: { kind: 'measure', unit: 'year', additive: false },
          lexicon: { ...noun('age'), high: 'old', low: 'young', unit: 'years' },
          hints: { min: 13, max: 90, nullRate: 0.15 },
        }),
        attr.timestamptz('watch_history_timestamps', {
          optional: true,
          multiValued: true,
          role: { kind: 'time' },
          lexicon: noun('watch-history timestamp'),
          hints: { min: '2019-01-01', max: '2025-12-31', setSize: [0, 8] },
        }),
      ],
    },
    {
      name: 'Subscriber',
      parent: 'ConsumerAccount',
      lexicon: noun('subscriber'),
      fraction: 0.6,
      attributes: [
        attr.enum('subscription_tier', ['basic', 'plus', 'premium'], {
          role: { kind: 'category' },
          lexicon: noun('subscription tier'),
        }),
        attr.boolean('active', {
          role: { kind: 'flag' },
          lexicon: { ...noun('active status', 'active statuses'), adjective: 'active' },
        }),
        attr.enum('notification_prefs', ['email', 'push', 'sms', 'in_app'], {
          optional: true,
          multiValued: true,
          role: { kind: 'category' },
          lexicon: noun('notification preference'),
          hints: { setSize: [0, 3] },
        }),
      ],
    },
    {
      name: 'Content',
      specialization: { disjoint: true, total: false },
      lexicon: { ...noun('content item'), everyday: noun('video') },
      counts: { tiny: 80, small: 1200, paper: 12000, large: 120000 },
      attributes: [
        attr.text('title', { role: { kind: 'name' }, lexicon: noun('title'), hints: { faker: 'book.title' } }),
        attr.timestamptz('created_at', {
          role: { kind: 'time' },
          lexicon: { ...noun('creation time'), high: 'recent', low: 'early', event: 'created' },
          hints: { min: '2019-01-01', max: '2025-12-31' },
        }),
        attr.integer('duration', {
          role: { kind: 'measure', unit: 'second', additive: true },
          lexicon: {
            ...noun('duration in seconds', 'durations in seconds'),
            high: 'long',
            low: 'short',
            unit: 'seconds',
          },
          hints: { min: 5, max: 14400 },
        }),
        attr.enum('quality_opts', ['360p', '480p', '720p', '1080p', '4k'], {
          optional: true,
          multiValued: true,
          role: { kind: 'category' },
          lexicon: noun('quality option'),
          hints: { setSize: [0, 4] },
        }),
      ],
    },
    {
      name: 'LiveContent',
      parent: 'Content',
      specialization: { disjoint: true, total: false },
      lexicon: { ...noun('live content item'), everyday: noun('live video') },
      fraction: 0.3333,
      attributes: [
        attr.timestamptz('scheduled_start', {
          role: { kind: 'time' },
          lexicon: { ...noun('scheduled start'), high: 'late', low: 'early', event: 'scheduled to start' },
          hints: { min: '2019-01-01', max: '2025-12-31' },
        }),
        attr.boolean('is_live', {
          role: { kind: 'flag' },
          lexicon: { ...noun('live status', 'live statuses'), adjective: 'live' },
        }),
      ],
    },
    {
      name: 'LiveStream',
      parent: 'LiveContent',
      lexicon: noun('live stream'),
      fraction: 0.5,
      attributes: [
        attr.integer('peak_viewers', {
          role: { kind: 'measure', unit: 'viewer', additive: false },
          lexicon: { ...noun('peak viewer count'), high: 'popular', low: 'unpopular', unit: 'viewers' },
          hints: { min: 0, max: 250000 },
        }),
        attr.boolean('chat_enabled', {
          role: { kind: 'flag' },
          lexicon: { ...noun('chat setting'), adjective: 'chat-enabled' },
        }),
      ],
    },
    {
      name: 'RecordedContent',
      parent: 'Content',
      specialization: { disjoint: true, total: false },
      lexicon: { ...noun('recorded content item'), everyday: noun('recorded video') },
      fraction: 0.5,
      attributes: [
        attr.numeric('file_size_mb', 10, 2, {
          role: { kind: 'measure', unit: 'MB', additive: true },
          lexicon: { ...noun('file size in MB', 'file sizes in MB'), high: 'large', low: 'small', unit: 'MB' },
          hints: { min: 0.5, max: 20000 },
        }),
        attr.enum('resolution', ['480p', '720p', '1080p', '1440p', '4k'], {
          role: { kind: 'category' },
          lexicon: noun('resolution'),
        }),
        attr.integer('chapter_markers', {
          optional: true,
          multiValued: true,
          role: { kind: 'measure', unit: 'second', additive: false },
          lexicon: { ...noun('chapter marker'), high: 'late', low: 'early', unit: 'seconds' },
          hints: { min: 0, max: 14400, setSize: [0, 6] },
        }),
      ],
    },
    {
      name: 'Clip',
      parent: 'RecordedContent',
      lexicon: noun('clip'),
      fraction: 0.6,
      attributes: [
        attr.integer('start_offset', {
          role: { kind: 'measure', unit: 'second', additive: false },
          lexicon: {
            ...noun('start offset in seconds', 'start offsets in seconds'),
            high: 'late',
            low: 'early',
            unit: 'seconds',
          },
          hints: { min: 0, max: 7200 },
        }),
        attr.integer('end_offset', {
          role: { kind: 'measure', unit: 'second', additive: false },
          lexicon: {
            ...noun('end offset in seconds', 'end offsets in seconds'),
            high: 'late',
            low: 'early',
            unit: 'seconds',
          },
          hints: { min: 5, max: 7260 },
        }),
      ],
    },
    {
      name: 'Channel',
      lexicon: noun('channel'),
      counts: { tiny: 20, small: 300, paper: 3000, large: 30000 },
      attributes: [
        attr.text('name', { role: { kind: 'name' }, lexicon: noun('channel name'), hints: { faker: 'company.name' } }),
        attr.text('description', {
          optional: true,
          role: { kind: 'description' },
          lexicon: noun('description'),
          hints: { faker: 'company.catchPhrase', nullRate: 0.2 },
        }),
        attr.timestamptz('created_at', {
          role: { kind: 'time' },
          lexicon: { ...noun('creation time'), high: 'recent', low: 'early', event: 'created' },
          hints: { min: '2019-01-01', max: '2025-12-31' },
        }),
      ],
    },
    {
      name: 'Tag',
      lexicon: noun('tag'),
      counts: { tiny: 15, small: 100, paper: 500, large: 2000 },
      attributes: [
        attr.text('name', {
          role: { kind: 'name' },
          lexicon: noun('tag name'),
          hints: { faker: 'word.noun', unique: true },
        }),
        attr.text('aliases', {
          optional: true,
          multiValued: true,
          role: { kind: 'name' },
          lexicon: noun('alias', 'aliases'),
          hints: { faker: 'word.adjective', setSize: [0, 3] },
        }),
      ],
    },
  ],
  relationships: [
    {
      name: 'produced_by',
      from: 'Content',
      to: 'CreatorAccount',
      cardinality: 'many-to-one',
      participation: { from: 'total', to: 'partial' },
      role: 'producer',
      lexicon: { forward: 'produced by', reverse: 'produced' },
      degree: { skew: 0.9 },
    },
    {
      name: 'hosted_by',
      from: 'LiveStream',
      to: 'Streamer',
      cardinality: 'many-to-one',
      participation: { from: 'total', to: 'partial' },
      role: 'host',
      lexicon: { forward: 'hosted by', reverse: 'hosted' },
      degree: { skew: 1 },
    },
    {
      name: 'derived_from',
      from: 'Clip',
      to: 'LiveStream',
      cardinality: 'many-to-one',
      participation: { from: 'partial', to: 'partial' },
      role: 'source_stream',
      lexicon: { forward: 'derived from', reverse: 'yielded' },
      degree: { noneRate: 0.3, skew: 0.8 },
    },
    {
      name: 'published_on',
      from: 'Content',
      to: 'Channel',
      cardinality: 'many-to-many',
      lexicon: { forward: 'published on', reverse: 'published' },
      degree: { mean: 1.5, max: 4, skew: 0.9, noneRate: 0.05 },
    },
    {
      name: 'tagged_with',
      from: 'Content',
      to: 'Tag',
      cardinality: 'many-to-many',
      lexicon: { forward: 'tagged with', reverse: 'used on' },
      degree: { mean: 3, max: 8, skew: 1.1, noneRate: 0.1 },
    },
    {
      name: 'owns',
      from: 'CreatorAccount',
      to: 'Channel',
      cardinality: 'many-to-many',
      lexicon: { forward: 'owns', reverse: 'owned by' },
      degree: { mean: 1.5, max: 5, skew: 0.8, noneRate: 0.15 },
    },
    {
      name: 'viewed',
      from: 'ConsumerAccount',
      to: 'Content',
      cardinality: 'many-to-many',
      lexicon: { forward: 'viewed', reverse: 'viewed by' },
      degree: { mean: 8, max: 30, skew: 1, noneRate: 0.1 },
    },
    {
      name: 'subscribes_to',
      from: 'Subscriber',
      to: 'CreatorAccount',
      cardinality: 'many-to-many',
      lexicon: { forward: 'subscribes to', reverse: 'subscribed to by' },
      degree: { mean: 4, max: 15, skew: 1, noneRate: 0.05 },
    },
    {
      name: 'shared',
      from: 'Account',
      to: 'Clip',
      cardinality: 'many-to-many',
      lexicon: { forward: 'shared', reverse: 'shared by' },
      degree: { mean: 1, max: 5, skew: 0.9, noneRate: 0.5 },
    },
  ],
});
