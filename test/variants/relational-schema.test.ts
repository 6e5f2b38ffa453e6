// @tier long
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { allPresets, presetVariant } from '../../generator/variants/variant-presets.ts';
import { renderSchemaFile } from '../../generator/shred/ddl-writer.ts';
import { quoteIdent, quoteLiteral } from '../../generator/common/sql-text.ts';
import type { VariantSpec } from '../../generator/variants/variant-spec.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';

const social = indexDomain(BUILT_IN_DOMAINS['social_media']!);
const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
const library = indexDomain(
  parseDomainJson(readFileSync(join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json'), 'utf8'), 'library.json'),
);

const tableNames = (index: typeof social, name: string) =>
  buildRelationalSchema(index, presetVariant(index, name)).tables.map((t) => t.name);

describe('preset layouts', () => {
  it('full_sti keeps each hierarchy in one table with a checked discriminator', () => {
    const schema = buildRelationalSchema(social, presetVariant(social, 'full_sti'));
    const accounts = schema.tables.find((t) => t.name === 'accounts');
    expect(accounts?.columns.map((c) => c.name)).toContain('type');
    expect(accounts?.checks[0]).toBe(
      "type IN ('account', 'creator_account', 'streamer', 'consumer_account', 'subscriber')",
    );
    // Subclass attributes exist exactly on rows of the subclass.
    expect(accounts?.checks).toContain("(type IN ('streamer')) = (platform IS NOT NULL)");
    expect(schema.tables.some((t) => t.name === 'streamers')).toBe(false);
  });

  it('full_cti has one table per class, subclass ids referencing their parent', () => {
    const schema = buildRelationalSchema(social, presetVariant(social, 'full_cti'));
    const streamer = schema.tables.find((t) => t.name === 'streamer');
    expect(streamer?.foreignKeys).toEqual([{ columns: ['id'], table: 'creator_account', references: ['id'] }]);
    expect(streamer?.columns.map((c) => c.name)).toEqual(['id', 'platform', 'avg_viewers']);
  });

  it('full_concrete copies inherited attributes down and has no table for a class that cannot have direct members', () => {
    const names = tableNames(retail, 'full_concrete');
    expect(names).not.toContain('products');
    expect(names).not.toContain('physical_products');
    const schema = buildRelationalSchema(retail, presetVariant(retail, 'full_concrete'));
    const apparel = schema.tables.find((t) => t.name === 'apparel_items');
    expect(apparel?.columns.map((c) => c.name).slice(0, 6)).toEqual([
      'id',
      'name',
      'price',
      'quantity',
      'material',
      'dimensions',
    ]);
  });

  it('concrete_all_tables keeps a registry where relationships need a single target, and stores derived_from in a table', () => {
    const names = tableNames(social, 'concrete_all_tables');
    expect(names).toContain('account_registry');
    expect(names).toContain('content_registry');
    expect(names).toContain('clip_derived_from');
  });

  it('names sibling attributes apart when they share a table', () => {
    const schema = buildRelationalSchema(retail, presetVariant(retail, 'full_sti'));
    const products = schema.tables.find((t) => t.name === 'products');
    expect(products?.columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(['apparel_category', 'accessories_category']),
    );
  });

  it('uses flags for an overlapping hierarchy in one table', () => {
    const schema = buildRelationalSchema(library, presetVariant(library, 'full_sti'));
    const people = schema.tables.find((t) => t.role.kind === 'entity' && t.role.root === 'Person');
    expect(people?.columns.filter((c) => c.role.kind === 'flag').map((c) => c.name)).toEqual([
      'is_author',
      'is_member',
      'is_student_member',
      'is_staff_member',
    ]);
    expect(people?.checks).toContain('NOT is_student_member OR is_member');
  });
});

describe('variant checks', () => {
  const base = presetVariant(social, 'full_cti');
  const broken = (patch: Partial<VariantSpec>): VariantSpec => ({ ...base, name: 'broken', ...patch });
  it.each([
    [
      {
        hierarchies: {
          ...base.hierarchies,
          Account: {
            mode: 'nested',
            groups: [['Account', 'Streamer'], ['CreatorAccount'], ['ConsumerAccount'], ['Subscriber']],
          },
        },
      },
      'variant broken.hierarchies.Account: group [Account, Streamer] is not a connected subtree listed top first',
    ],
    [
      { hierarchies: { ...base.hierarchies, Account: { mode: 'nested', groups: [['Account']] } } },
      'variant broken.hierarchies.Account: class CreatorAccount is in 0 groups, expected exactly 1',
    ],
    [
      { hierarchies: { Content: base.hierarchies['Content']! } },
      'variant broken: no choice for the hierarchy of Account',
    ],
    [
      { multiValued: { ...base.multiValued, 'Tag.aliases': 'csv' as never } },
      'variant broken.multiValued.Tag.aliases: expected array, jsonb or table, got "csv"',
    ],
    [
      { relationships: { ...base.relationships, published_on: 'fk' } },
      'variant broken.relationships.published_on: not a many-to-one or one-to-one relationship of domain social_media',
    ],
  ] as [Partial<VariantSpec>, string][])('rejects %#', (patch, message) => {
    expect(() => buildRelationalSchema(social, broken(patch))).toThrow(message);
  });
  it('rejects concrete inheritance of an overlapping hierarchy', () => {
    const v = presetVariant(library, 'full_cti');
    expect(() =>
      buildRelationalSchema(library, {
        ...v,
        hierarchies: { ...v.hierarchies, Person: { ...v.hierarchies['Person']!, mode: 'concrete' } },
      }),
    ).toThrow('variant full_cti.hierarchies.Person: concrete inheritance needs a disjoint hierarchy');
  });
});

describe('DDL', () => {
  it('names no schema, quotes reserved words, and runs on PostgreSQL for every preset of every domain', async () => {
    const pg = await PGlite.create();
    try {
      for (const index of [social, retail, library]) {
        for (const variant of allPresets(index)) {
          const schema = buildRelationalSchema(index, variant);
          const ddl = renderSchemaFile(schema, '-- test');
          expect(ddl).not.toMatch(/search_path|CREATE SCHEMA/i);
          for (const t of schema.tables) expect(ddl).toContain(`CREATE TABLE ${quoteIdent(t.name)} (`);
          const s = `${index.domain.name}_${variant.name}`;
          await pg.exec(`CREATE SCHEMA ${s}; SET search_path TO ${s};\n${ddl}`);
          const { rows } = await pg.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = ${quoteLiteral(s)}`,
          );
          expect(rows[0]?.n, `${s} table count`).toBe(schema.tables.length);
        }
      }
      expect(renderSchemaFile(buildRelationalSchema(retail, presetVariant(retail, 'full_cti')), '')).toContain(
        'CREATE TABLE "user" (',
      );
    } finally {
      await pg.close();
    }
  });

  it('quotes only where PostgreSQL needs it', () => {
    expect(['live_stream', 'user', 'order', 'Tag', 'type', "o'k", 'select'].map(quoteIdent)).toEqual([
      'live_stream',
      '"user"',
      '"order"',
      '"Tag"',
      'type',
      '"o\'k"',
      '"select"',
    ]);
    expect(quoteLiteral("O'Brien")).toBe("'O''Brien'");
  });
});
