import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { defineDomain, attr, noun } from '../../generator/er-model/define-domain.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { ConfigError } from '../../generator/common/errors.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { MAX_RANDOM_VARIANTS, selectVariants, selectVariantsReport } from '../../generator/variants/select-variants.ts';
import { designSpaceSize, variantSignature } from '../../generator/variants/random-variants.ts';
import { presetVariant } from '../../generator/variants/variant-presets.ts';
import { runCli, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

// The library fixture's Person hierarchy is overlapping: concrete tables cannot hold it.
const LIBRARY_JSON = join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json');
const library = indexDomain(parseDomainJson(readFileSync(LIBRARY_JSON, 'utf8'), 'library.json'));
const tmp = tempDir('variants-robustness');
afterAll(() => tmp.remove());
const NO_SERVER = { DATABASE_URL: undefined };

describe('finding 18: identical designs are one variant', () => {
  it('drops presets whose design repeats an earlier one, keeping the first name and saying why', () => {
    const { variants, notes } = selectVariantsReport(library, 'all', 1);
    expect(variants.map((v) => v.name)).toEqual([
      'full_sti',
      'full_cti',
      'full_normalized',
      'hybrid_roots_merged',
      'hybrid_leaves_merged',
      'mixed_sti_cti',
      'sti_junction_fks',
      'kitchen_sink',
    ]);
    expect(new Set(variants.map(variantSignature)).size).toBe(variants.length);
    expect(notes).toEqual([
      'full_concrete: same design as full_cti (overlapping hierarchy Person cannot be stored as concrete tables); left out',
      'concrete_all_tables: same design as full_normalized (overlapping hierarchy Person cannot be stored as concrete tables); left out',
    ]);
  });

  it('keeps whichever of two identical designs was asked for first', () => {
    const { variants, notes } = selectVariantsReport(library, 'full_concrete,full_cti', 1);
    expect(variants.map((v) => v.name)).toEqual(['full_concrete']);
    expect(notes).toEqual([
      'full_cti: same design as full_concrete (overlapping hierarchy Person cannot be stored as concrete tables); left out',
    ]);
  });

  it("says in full_concrete's description that the overlapping hierarchy is stored as class tables", () => {
    expect(presetVariant(library, 'full_concrete').description).toMatch(/overlapping hierarchy Person as class tables/);
    // A disjoint domain's description is unchanged.
    expect(presetVariant(indexDomain(BUILT_IN_DOMAINS['retail']!), 'full_concrete').description).toBe(
      'a table per concrete class with inherited attributes copied down; child tables',
    );
  });

  it('the reference domains keep all ten presets', () => {
    for (const domain of Object.values(BUILT_IN_DOMAINS)) {
      const { variants, notes } = selectVariantsReport(indexDomain(domain), 'all', 1);
      expect(variants).toHaveLength(10);
      expect(notes).toEqual([]);
    }
  });

  it('variants and build say so on stderr; build builds the design once', () => {
    const listing = runCli(['variants', '--dataset', LIBRARY_JSON, '--json']);
    expect(listing.status).toBe(0);
    expect(listing.stdout.trim().split('\n')).toHaveLength(8);
    expect(listing.stderr).toMatch(
      /^note: full_concrete: same design as full_cti \(overlapping hierarchy Person cannot be stored as concrete tables\); left out$/m,
    );

    const out = join(tmp.dir, 'library');
    const build = runCli(
      ['build', '--dataset', LIBRARY_JSON, '--variants', 'full_cti,full_concrete', '--scale', 'tiny', '--out', out],
      { env: NO_SERVER },
    );
    expect(build.status).toBe(0);
    expect(build.stderr).toMatch(/^warning: full_concrete: same design as full_cti .*left out$/m);
    expect(build.stderr).toMatch(/built 1 variants of library/);
    const manifest = JSON.parse(readFileSync(join(out, 'build.json'), 'utf8')) as { variants: { name: string }[] };
    expect(manifest.variants.map((v) => v.name)).toEqual(['full_cti']);
  });
});

describe('finding 10: random:K is bounded before any work', () => {
  // One many-to-one relationship and one multi-valued attribute: 2 × 3 = 6 designs.
  const small = indexDomain(
    defineDomain({
      name: 'small',
      entities: [
        {
          name: 'A',
          lexicon: noun('a'),
          counts: { tiny: 3, small: 3, paper: 3, large: 3 },
          attributes: [attr.text('tags', { multiValued: true, optional: true })],
        },
        { name: 'B', lexicon: noun('b'), counts: { tiny: 3, small: 3, paper: 3, large: 3 }, attributes: [] },
      ],
      relationships: [
        { name: 'r', from: 'A', to: 'B', cardinality: 'many-to-one', lexicon: { forward: 'of', reverse: 'has' } },
      ],
    }),
  );

  it('counts the designs a domain admits', () => {
    expect(designSpaceSize(small)).toBe(6);
    const presets = new Set(selectVariants(small, 'all', 1).map(variantSignature)).size;
    const available = 6 - presets;
    const drawn = selectVariants(small, `random:${available}`, 1).filter((v) => v.name.startsWith('random_'));
    expect(drawn).toHaveLength(available);
    expect(() => selectVariants(small, `random:${available + 1}`, 1)).toThrow(
      new ConfigError(
        `--variants: random:${available + 1}: domain small admits only ${available} distinct variants beyond the presets`,
      ),
    );
  });

  it(`refuses more than ${MAX_RANDOM_VARIANTS} at once, at once`, () => {
    const started = performance.now();
    expect(() => selectVariants(indexDomain(BUILT_IN_DOMAINS['social_media']!), 'random:100000', 1)).toThrow(
      `--variants: random:100000: at most ${MAX_RANDOM_VARIANTS} random variants can be drawn at once`,
    );
    expect(performance.now() - started).toBeLessThan(500);
    expect(
      selectVariants(indexDomain(BUILT_IN_DOMAINS['social_media']!), `random:${MAX_RANDOM_VARIANTS}`, 1),
    ).toHaveLength(MAX_RANDOM_VARIANTS);
  });

  it('build exits 2 with one line and writes nothing', () => {
    const out = join(tmp.dir, 'huge');
    const run = runCli(['build', '--dataset', 'social_media', '--variants', 'random:100000', '--out', out], {
      env: NO_SERVER,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `equisql build: --variants: random:100000: at most ${MAX_RANDOM_VARIANTS} random variants can be drawn at once`,
    ]);
    expect(existsSync(out)).toBe(false);
  });
});
