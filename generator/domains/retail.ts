import { attr, defineDomain, noun } from '../er-model/define-domain.ts';

/**
 * The retail domain of the reference paper (its Figure 7 and Appendix A): a three-level
 * product hierarchy that is disjoint and total at every level (the "five concrete product
 * types" of Q4), users who are customers or employees, orders and reviews. The paper never
 * lists the relationships; these are read off its questions. At `paper` scale there are
 * about 1,000 electronics products (Q3).
 */
/** Every combination of the parts, in order: `combine(['A', 'B'], ['x'])` is `['A x', 'B x']`. */
const combine = (...parts: readonly (readonly string[])[]): string[] =>
  parts.reduce<string[]>((names, words) => names.flatMap((n) => words.map((w) => (n ? `${n} ${w}` : w))), ['']);

/** Product names by kind of product, so a device is named like a device and an app like an app. */
const PRODUCT_NAMES = {
  Electronics: combine(
    ['Norvik', 'Altura', 'Kestrel', 'Lumio', 'Veyra', 'Corsan'],
    ['Pulse 5 Phone', 'Air 13 Laptop', 'Studio Headphones', 'Tab 10 Tablet', 'Go Smartwatch', 'Beam Projector'],
    ['128 GB', '256 GB', 'Black', 'Silver'],
  ),
  Apparel: combine(
    ['Harbor', 'Fenwick', 'Oakline', 'Marlow', 'Tidewater', 'Quill'],
    ['Navy', 'Olive', 'Charcoal', 'Sand'],
    ['Linen Shirt', 'Wool Sweater', 'Denim Jacket', 'Chino Trousers', 'Rain Parka', 'Cotton Hoodie'],
  ),
  Accessories: combine(
    ['Harbor', 'Fenwick', 'Oakline', 'Marlow', 'Tidewater', 'Quill'],
    ['Black', 'Tan', 'Grey'],
    ['Leather Wallet', 'Canvas Tote', 'Sunglasses', 'Watch Strap', 'Phone Case', 'Laptop Sleeve', 'Backpack'],
  ),
  Software: combine(
    ['Note', 'Task', 'Photo', 'Budget', 'Route', 'Sleep', 'Habit', 'Recipe', 'Word', 'Code'],
    ['Pad', 'Flow', 'Keeper', 'Pilot', 'Studio', 'Hub', 'Mate', 'Lab'],
  ).map((n) => n.replace(' ', '')),
};

/** What reviewers write: a verdict and a detail. */
const REVIEW_TEXTS = combine(
  [
    'Works as described.',
    'Great value for the price.',
    'Not what I expected.',
    'Would buy again.',
    'Stopped working after a month.',
    'Arrived two days late.',
    'Better than the one it replaced.',
  ],
  [
    'Setup took five minutes.',
    'The colour is lovely.',
    'Support answered quickly.',
    'The box was damaged.',
    'It runs a little small.',
    'The manual is hard to follow.',
  ],
);

export const retail = defineDomain({
  name: 'retail',
  description: 'Physical and digital products, customers and employees, orders and reviews.',
  entities: [
    {
      name: 'Product',
      specialization: { disjoint: true, total: true },
      lexicon: noun('product'),
      counts: { tiny: 80, small: 1600, paper: 8000, large: 80000 },
      attributes: [
        attr.text('name', {
          role: { kind: 'name' },
          lexicon: noun('product name'),
          hints: {
            faker: 'commerce.productName',
            bySubclass: {
              Electronics: { pool: PRODUCT_NAMES.Electronics },
              Apparel: { pool: PRODUCT_NAMES.Apparel },
              Accessories: { pool: PRODUCT_NAMES.Accessories },
              Media: { faker: 'music.album' },
              Software: { pool: PRODUCT_NAMES.Software },
            },
          },
        }),
        attr.numeric('price', 10, 2, {
          role: { kind: 'measure', unit: 'USD', additive: true, multipliedBy: ['quantity'] },
          lexicon: { ...noun('price'), high: 'expensive', low: 'cheap', unit: 'dollars' },
          // A device costs what a device costs, an album what an album does.
          hints: {
            min: 1,
            max: 2000,
            bySubclass: {
              Electronics: { min: 20, max: 2000 },
              Apparel: { min: 8, max: 400 },
              Accessories: { min: 5, max: 600 },
              Media: { min: 1, max: 60 },
              Software: { min: 1, max: 300 },
            },
          },
        }),
        attr.integer('quantity', {
          role: { kind: 'count' },
          lexicon: { ...noun('quantity in stock', 'quantities in stock'), high: 'well-stocked', low: 'scarce' },
          hints: { min: 0, max: 500 },
        }),
        attr.text('tags', {
          optional: true,
          multiValued: true,
          role: { kind: 'category' },
          lexicon: noun('tag'),
          hints: {
            pool: ['new', 'sale', 'bestseller', 'eco', 'gift', 'limited', "editor's pick", 'clearance'],
            setSize: [0, 4],
          },
        }),
      ],
    },
    {
      name: 'PhysicalProduct',
      parent: 'Product',
      specialization: { disjoint: true, total: true },
      lexicon: noun('physical product'),
      fraction: 0.6,
      attributes: [
        attr.text('material', {
          role: { kind: 'category' },
          lexicon: noun('material'),
          hints: {
            pool: [
              'Steel',
              'Aluminium',
              'Plastic',
              'Glass',
              'Wood',
              'Leather',
              'Cotton',
              'Rubber',
              'Ceramic',
              'Bamboo',
            ],
            // A shirt is cotton or linen, a phone aluminium or glass, a bag leather or canvas.
            bySubclass: {
              Apparel: { pool: ['Cotton', 'Linen', 'Wool', 'Denim', 'Polyester', 'Leather', 'Silk'] },
              Electronics: { pool: ['Aluminium', 'Plastic', 'Glass', 'Steel'] },
              Accessories: { pool: ['Leather', 'Canvas', 'Steel', 'Silver', 'Plastic', 'Wood', 'Bamboo'] },
            },
          },
        }),
        attr.text('dimensions', {
          role: { kind: 'category' },
          lexicon: noun('package size'),
          hints: { pool: ['10x10x5 cm', '20x15x10 cm', '30x20x10 cm', '40x30x20 cm', '60x40x30 cm', '5x5x2 cm'] },
        }),
      ],
    },
    {
      name: 'Apparel',
      parent: 'PhysicalProduct',
      lexicon: { ...noun('apparel item'), everyday: noun('clothing item') },
      fraction: 0.45,
      attributes: [
        attr.text('category', {
          role: { kind: 'category' },
          lexicon: noun('apparel category', 'apparel categories'),
          hints: { pool: ['shirts', 'pants', 'dresses', 'jackets', 'shoes', 'activewear', 'knitwear'] },
        }),
        attr.enum('avail_sizes', ['XS', 'S', 'M', 'L', 'XL', 'XXL'], {
          multiValued: true,
          role: { kind: 'category' },
          lexicon: noun('available size'),
          hints: { setSize: [1, 6] },
        }),
      ],
    },
    {
      name: 'Accessories',
      parent: 'PhysicalProduct',
      lexicon: noun('accessory', 'accessories'),
      fraction: 0.34,
      attributes: [
        attr.text('category', {
          role: { kind: 'category' },
          lexicon: noun('accessory category', 'accessory categories'),
          hints: { pool: ['bags', 'belts', 'hats', 'jewelry', 'watches', 'scarves', 'cases'] },
        }),
        attr.text('material_type', {
          role: { kind: 'category' },
          lexicon: noun('material type'),
          hints: { pool: ['leather', 'metal', 'fabric', 'plastic', 'wood', 'silicone'] },
        }),
      ],
    },
    {
      name: 'Electronics',
      parent: 'PhysicalProduct',
      lexicon: { ...noun('electronics product'), everyday: noun('device') },
      fraction: 0.21,
      attributes: [
        attr.text('model_no', {
          role: { kind: 'identifier' },
          lexicon: noun('model number'),
          hints: { faker: 'vehicle.vrm', unique: true },
        }),
        attr.text('standards', {
          optional: true,
          multiValued: true,
          role: { kind: 'category' },
          lexicon: noun('supported standard'),
          hints: {
            pool: ['USB-C', 'Bluetooth 5.0', 'Wi-Fi 6', 'HDMI 2.1', 'Qi', 'NFC', 'DisplayPort 1.4'],
            setSize: [0, 4],
          },
        }),
      ],
    },
    {
      name: 'DigitalProduct',
      parent: 'Product',
      specialization: { disjoint: true, total: true },
      lexicon: noun('digital product'),
      fraction: 0.4,
      attributes: [
        attr.text('format', {
          role: { kind: 'category' },
          lexicon: noun('file format'),
          hints: {
            pool: ['mp3', 'flac', 'mp4', 'mkv', 'epub', 'pdf', 'zip', 'exe', 'dmg', 'apk'],
            // An album or a film comes as media, an app as a package.
            bySubclass: {
              Media: { pool: ['mp3', 'flac', 'mp4', 'mkv', 'epub', 'pdf'] },
              Software: { pool: ['zip', 'exe', 'dmg', 'apk'] },
            },
          },
        }),
        attr.text('description', {
          optional: true,
          role: { kind: 'description' },
          lexicon: noun('description'),
          hints: { faker: 'commerce.productDescription', nullRate: 0.2 },
        }),
      ],
    },
    {
      name: 'Media',
      parent: 'DigitalProduct',
      lexicon: { ...noun('media product'), everyday: noun('media item') },
      fraction: 0.5,
      attributes: [
        attr.integer('duration', {
          role: { kind: 'measure', unit: 'second', additive: true },
          lexicon: {
            ...noun('duration in seconds', 'durations in seconds'),
            high: 'long',
            low: 'short',
            unit: 'seconds',
          },
          hints: { min: 30, max: 10800 },
        }),
      ],
    },
    {
      name: 'Software',
      parent: 'DigitalProduct',
      lexicon: { ...noun('software product'), everyday: noun('app') },
      fraction: 0.5,
      attributes: [
        attr.text('version', {
          role: { kind: 'identifier' },
          lexicon: noun('version'),
          hints: { faker: 'system.semver' },
        }),
        attr.text('platforms', {
          multiValued: true,
          role: { kind: 'category' },
          lexicon: noun('supported platform'),
          hints: { pool: ['Windows', 'macOS', 'Linux', 'iOS', 'Android'], setSize: [1, 5] },
        }),
      ],
    },
    {
      name: 'User',
      specialization: { disjoint: true, total: true },
      lexicon: noun('user'),
      counts: { tiny: 60, small: 1000, paper: 10000, large: 100000 },
      attributes: [
        attr.text('first_name', {
          role: { kind: 'name' },
          lexicon: noun('first name'),
          hints: { faker: 'person.firstName' },
        }),
        attr.text('last_name', {
          role: { kind: 'name' },
          lexicon: noun('last name'),
          hints: { faker: 'person.lastName' },
        }),
        attr.text('email', {
          role: { kind: 'contact' },
          lexicon: noun('email address', 'email addresses'),
          hints: { faker: 'internet.email', unique: true },
        }),
        attr.text('phone_no', {
          optional: true,
          multiValued: true,
          role: { kind: 'contact' },
          lexicon: noun('phone number'),
          hints: { faker: 'phone.number', setSize: [0, 3] },
        }),
      ],
    },
    {
      name: 'Customer',
      parent: 'User',
      lexicon: noun('customer'),
      fraction: 0.9,
      attributes: [
        attr.integer('loyalty_points', {
          role: { kind: 'count' },
          lexicon: { ...noun('loyalty point balance'), high: 'loyal', low: 'new' },
          hints: { min: 0, max: 10000 },
        }),
      ],
    },
    {
      name: 'Employee',
      parent: 'User',
      lexicon: noun('employee'),
      fraction: 0.1,
      attributes: [
        attr.text('department', {
          role: { kind: 'category' },
          lexicon: noun('department'),
          hints: { pool: ['sales', 'support', 'warehouse', 'marketing', 'finance', 'logistics'] },
        }),
        attr.text('role', {
          role: { kind: 'category' },
          lexicon: noun('job role'),
          hints: { pool: ['associate', 'specialist', 'team lead', 'manager', 'director', 'intern'] },
        }),
        attr.date('hire_date', {
          role: { kind: 'date' },
          lexicon: { ...noun('hire date'), high: 'recent', low: 'early', event: 'hired' },
          hints: { min: '2010-01-01', max: '2025-12-31' },
        }),
      ],
    },
    {
      name: 'CustOrder',
      lexicon: noun('order'),
      counts: { tiny: 60, small: 2000, paper: 20000, large: 200000 },
      attributes: [
        attr.timestamptz('placed_at', {
          role: { kind: 'time' },
          lexicon: { ...noun('order time'), high: 'recent', low: 'early', event: 'placed' },
          hints: { min: '2021-01-01', max: '2025-12-31' },
        }),
      ],
    },
    {
      name: 'Review',
      lexicon: noun('review'),
      counts: { tiny: 60, small: 1500, paper: 15000, large: 150000 },
      attributes: [
        attr.integer('rating', {
          role: { kind: 'score' },
          lexicon: { ...noun('rating'), high: 'good', low: 'bad' },
          hints: { min: 1, max: 5 },
        }),
        attr.text('body', {
          optional: true,
          role: { kind: 'description' },
          lexicon: noun('review text'),
          hints: { pool: REVIEW_TEXTS, nullRate: 0.3 },
        }),
      ],
    },
  ],
  relationships: [
    {
      name: 'places',
      from: 'CustOrder',
      to: 'Customer',
      cardinality: 'many-to-one',
      participation: { from: 'total', to: 'partial' },
      role: 'customer',
      lexicon: { forward: 'placed by', reverse: 'placed' },
      degree: { skew: 0.9 },
    },
    {
      name: 'contains',
      from: 'CustOrder',
      to: 'Product',
      cardinality: 'many-to-many',
      participation: { from: 'total', to: 'partial' },
      lexicon: { forward: 'contains', reverse: 'contained in' },
      degree: { mean: 3, max: 10, skew: 1 },
    },
    {
      name: 'processes',
      from: 'Employee',
      to: 'CustOrder',
      cardinality: 'many-to-many',
      lexicon: { forward: 'processes', reverse: 'processed by' },
      degree: { mean: 6, max: 25, skew: 0.8, noneRate: 0.1 },
    },
    {
      name: 'recommends',
      from: 'Employee',
      to: 'Product',
      cardinality: 'many-to-many',
      lexicon: { forward: 'recommends', reverse: 'recommended by' },
      degree: { mean: 4, max: 12, skew: 1, noneRate: 0.2 },
    },
    {
      name: 'writes',
      from: 'Review',
      to: 'Customer',
      cardinality: 'many-to-one',
      participation: { from: 'total', to: 'partial' },
      role: 'author',
      lexicon: { forward: 'written by', reverse: 'wrote' },
      degree: { skew: 1 },
    },
    {
      name: 'about',
      from: 'Review',
      to: 'Product',
      cardinality: 'many-to-one',
      participation: { from: 'total', to: 'partial' },
      role: 'product',
      lexicon: { forward: 'about', reverse: 'with' },
      degree: { skew: 1.1 },
    },
    {
      name: 'downloads',
      from: 'Customer',
      to: 'Software',
      cardinality: 'many-to-many',
      lexicon: { forward: 'downloaded', reverse: 'downloaded by' },
      degree: { mean: 2, max: 8, skew: 1, noneRate: 0.3 },
    },
    {
      name: 'installable_on',
      from: 'Software',
      to: 'Electronics',
      cardinality: 'many-to-many',
      lexicon: { forward: 'installable on', reverse: 'can run' },
      degree: { mean: 3, max: 10, skew: 0.9, noneRate: 0.1 },
    },
    {
      name: 'streams_to',
      from: 'Media',
      to: 'Electronics',
      cardinality: 'many-to-many',
      lexicon: { forward: 'streams to', reverse: 'plays' },
      degree: { mean: 2, max: 8, skew: 0.9, noneRate: 0.1 },
    },
    {
      name: 'paired_with',
      from: 'Apparel',
      to: 'Accessories',
      cardinality: 'many-to-many',
      lexicon: { forward: 'paired with', reverse: 'paired with' },
      degree: { mean: 2, max: 6, skew: 0.8, noneRate: 0.2 },
    },
    {
      name: 'compatible_with',
      from: 'Accessories',
      to: 'Electronics',
      cardinality: 'many-to-many',
      lexicon: { forward: 'compatible with', reverse: 'compatible with' },
      degree: { mean: 3, max: 10, skew: 0.9, noneRate: 0.15 },
    },
  ],
});
