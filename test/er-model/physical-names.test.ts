import { describe, expect, it } from 'vitest';
import { isSafeDefault, isSafeExpression, isSqlTypeName } from '../../generator/er-model/physical-sql.ts';
import { validateDomain } from '../../generator/er-model/validate-domain.ts';

/** A one-entity model with physical names, `change` applied to its entity's storage. */
function model(change: (storage: Record<string, unknown>) => void): unknown {
  const storage: Record<string, unknown> = { table: 'shop item', key: 'item_id', keyType: 'integer' };
  change(storage);
  return {
    name: 'shop',
    entities: [
      {
        name: 'Item',
        lexicon: { singular: 'item', plural: 'items' },
        counts: { tiny: 3, small: 30, paper: 300, large: 3000 },
        attributes: [
          { name: 'title', type: { kind: 'text' }, storage: { column: 'Title', sqlType: 'character varying(40)' } },
        ],
        storage,
      },
    ],
    relationships: [],
  };
}

describe('physical names in a model', () => {
  it('accept the types, defaults and expressions a schema declares', () => {
    for (const t of [
      'smallint',
      'character varying(45)',
      'numeric(4,2)',
      'timestamp without time zone',
      'timestamp(3) with time zone',
      'double precision',
      'text[]',
      'public.mpaa_rating',
      '"odd type"',
    ])
      expect(isSqlTypeName(t), t).toBe(true);
    for (const d of [
      '0',
      '-1.5',
      "'{}'::text[]",
      "'x'::character varying",
      'now()',
      'CURRENT_TIMESTAMP',
      'true',
      "('a b')",
    ])
      expect(isSafeDefault(d), d).toBe(true);
    for (const e of [
      'length("full ""name""")',
      "to_tsvector('english'::regconfig, coalesce(title, ''))",
      'price * quantity',
      'lower(a) || upper(b)',
    ])
      expect(isSafeExpression(e), e).toBe(true);
    expect(
      validateDomain(
        model(
          (s) => (s['opaque'] = [{ column: 'search', sqlType: 'tsvector', nullable: false, default: "''::tsvector" }]),
        ),
        'shop.json',
      ).entities[0]?.storage?.table,
    ).toBe('shop item');
  });

  it('refuse SQL smuggled into a type, a default or a generated expression, in one line naming the path', () => {
    for (const t of ['integer); DROP TABLE x; --', 'integer CHECK (pg_sleep(1) IS NULL)', 'text /* x */', ''])
      expect(isSqlTypeName(t), t).toBe(false);
    for (const d of ["nextval('x_seq'::regclass)", 'pg_sleep(10)', 'now()); DROP TABLE x; --', '(SELECT 1)'])
      expect(isSafeDefault(d), d).toBe(false);
    for (const e of [
      '(SELECT pg_sleep(10))',
      "pg_read_file('/etc/passwd')",
      'a; DROP TABLE x',
      'a -- b',
      '$$x$$',
      'length(a',
    ])
      expect(isSafeExpression(e), e).toBe(false);
    expect(() =>
      validateDomain(
        model((s) => (s['keyType'] = 'integer); DROP TABLE x; --')),
        'shop.json',
      ),
    ).toThrow(
      /^shop\.json: domains\.shop\.entities\.Item\.storage\.keyType: "integer\); DROP TABLE x; --" is not a type name$/u,
    );
    expect(() =>
      validateDomain(
        model((s) => (s['opaque'] = [{ column: 'c', sqlType: 'integer', nullable: true, default: 'pg_sleep(10)' }])),
        'shop.json',
      ),
    ).toThrow(/storage\.opaque\[0\]\.default: "pg_sleep\(10\)" is not a literal or a clock/u);
    expect(() =>
      validateDomain(
        model((s) => (s['opaque'] = [{ column: 'c', sqlType: 'integer', nullable: true, generated: '(SELECT 1)' }])),
        'shop.json',
      ),
    ).toThrow(/storage\.opaque\[0\]\.generated: /u);
    expect(() =>
      validateDomain(
        model((s) => (s['table'] = 'x'.repeat(64))),
        'shop.json',
      ),
    ).toThrow(/storage\.table: .* longer than the 63 bytes/u);
    expect(() =>
      validateDomain(
        model((s) => delete s['key']),
        'shop.json',
      ),
    ).toThrow(/storage\.key: required/u);
    expect(() =>
      validateDomain(
        model((s) => (s['primaryKey'] = ['other'])),
        'shop.json',
      ),
    ).toThrow(/storage\.primaryKey: must be a list of column names holding the key/u);
  });

  it('refuse a discriminator or flag that names a class outside the table, a repeated value, or a value no label has', () => {
    const refusal = (change: (storage: Record<string, unknown>) => void): string => {
      try {
        validateDomain(model(change), 'shop.json');
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    const discriminator = (d: Record<string, unknown>) => (s: Record<string, unknown>) =>
      (s['discriminator'] = { column: 'kind', sqlType: 'text', ...d });
    expect(refusal(discriminator({ values: { Item: 'item' } }))).toBe('');
    expect(refusal(discriminator({ values: { Gadget: 'g' } }))).toMatch(
      /storage\.discriminator\.values\.Gadget: "Gadget" is not Item or a class under it/u,
    );
    expect(refusal(discriminator({ sqlType: 'text); DROP TABLE x; --', values: { Item: 'item' } }))).toMatch(
      /storage\.discriminator\.sqlType: .* is not a type name/u,
    );
    expect(refusal(discriminator({ sqlType: 'kind_type', values: { Item: 'x' }, labels: ['a', 'b'] }))).toMatch(
      /storage\.discriminator\.values\.Item: "x" is not one of the labels/u,
    );
    expect(refusal((s) => (s['flags'] = { Item: 'is_item' }))).toMatch(
      /storage\.flags\.Item: "Item" is not a class under Item/u,
    );
    expect(refusal(discriminator({ values: { Item: '' } }))).toMatch(/storage\.discriminator\.values\.Item: /u);
    expect(refusal(discriminator({ column: 'item_id', values: { Item: 'item' } }))).toMatch(
      /storage\.discriminator\.column: column "item_id" is also key/u,
    );
  });
});
