import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../generator/common/errors.ts';
import {
  estimateCost,
  mergeLlmConfig,
  resolveLlmEndpoint,
  validateLlmConfig,
} from '../../generator/config/llm-config.ts';
import { loadConfig } from '../../generator/config/load-config.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

/** The one-line ConfigError the section is refused with. */
function refusal(section: unknown): string {
  try {
    validateLlmConfig(section, 'cfg.ts: llm');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toMatch(/[\n\r]/u);
    return (error as Error).message;
  }
  throw new Error('expected the section to be refused');
}

describe("the config's llm section", () => {
  it('names the path and what is allowed for each malformed field', () => {
    expect(refusal('gpt-4o')).toBe('cfg.ts: llm: must be an object {model, baseURL, prices}, got "gpt-4o"');
    expect(refusal({ mdel: 'm' })).toBe('cfg.ts: llm.mdel: unknown key (did you mean "model"?)');
    expect(refusal({ model: 'two words' })).toBe(
      'cfg.ts: llm.model: must be a model name (no spaces, at most 200 characters), got "two words"',
    );
    expect(refusal({ model: 4 })).toBe(
      'cfg.ts: llm.model: must be a model name (no spaces, at most 200 characters), got 4',
    );
    expect(refusal({ baseURL: 'ftp://x' })).toBe(
      'cfg.ts: llm.baseURL: must be an http(s) URL such as "http://127.0.0.1:8000/v1", got "ftp://x"',
    );
    expect(refusal({ baseURL: 'localhost:8000' })).toMatch(/^cfg\.ts: llm\.baseURL: must be an http\(s\) URL/u);
    expect(refusal({ prices: [] })).toBe(
      'cfg.ts: llm.prices: must be an object {model: {input, output}} of dollars per million tokens, got an array',
    );
    expect(refusal({ prices: { 'gpt-4o': 2.5 } })).toBe(
      'cfg.ts: llm.prices.gpt-4o: must be an object {input, output} of dollars per million tokens, got 2.5',
    );
    expect(refusal({ prices: { 'gpt-4.1': { input: 2 } } })).toBe(
      'cfg.ts: llm.prices["gpt-4.1"].output: must be a number of dollars per million tokens from 0 to 10000, got nothing',
    );
    expect(refusal({ prices: { m: { input: -1, output: 1 } } })).toBe(
      'cfg.ts: llm.prices.m.input: must be a number of dollars per million tokens from 0 to 10000, got -1',
    );
    expect(refusal({ prices: { m: { input: 1, output: '2' } } })).toBe(
      'cfg.ts: llm.prices.m.output: must be a number of dollars per million tokens from 0 to 10000, got "2"',
    );
    expect(refusal({ prices: { m: { input: 1, output: 2, cached: 0.5 } } })).toBe(
      'cfg.ts: llm.prices.m.cached: unknown key (expected one of input, output)',
    );
  });

  it("passes a well-formed section through, and the shipped config's section is well-formed", async () => {
    const section = { model: 'm', baseURL: 'http://127.0.0.1:1/v1', prices: { m: { input: 0, output: 1.5 } } };
    expect(validateLlmConfig(section, 'x')).toBe(section);
    const shipped = (await loadConfig(undefined, REPO_ROOT)).config.llm;
    expect(shipped?.model).toBeDefined();
    expect(shipped?.prices?.[shipped.model!]).toBeDefined();
  });

  it("checks a user's section on load and merges its prices over the shipped ones", async () => {
    const tmp = tempDir('llm-config');
    try {
      const good = join(tmp.dir, 'good.config.ts');
      writeFileSync(
        good,
        `export default { datasets: {}, llm: { model: 'mine', prices: { mine: { input: 1, output: 2 } } } };\n`,
      );
      const { config } = await loadConfig(good, tmp.dir);
      expect(config.llm?.model).toBe('mine');
      expect(config.llm?.prices?.['mine']).toEqual({ input: 1, output: 2 });
      expect(config.llm?.prices?.['gpt-4o-mini']).toBeDefined();
      const bad = join(tmp.dir, 'bad.config.ts');
      writeFileSync(bad, `export default { datasets: {}, llm: { prices: { mine: { input: 1e9, output: 2 } } } };\n`);
      await expect(loadConfig(bad, tmp.dir)).rejects.toThrow(
        `${bad}: llm.prices.mine.input: must be a number of dollars per million tokens from 0 to 10000, got 1000000000`,
      );
    } finally {
      tmp.remove();
    }
  });

  it("resolves the model flag over the config, the config's endpoint over the environment", () => {
    const config = { model: 'c', baseURL: 'http://config/v1' };
    expect(resolveLlmEndpoint(config, 'flag', 'http://env/v1')).toEqual({ model: 'flag', baseURL: 'http://config/v1' });
    expect(resolveLlmEndpoint({}, undefined, 'http://env/v1')).toEqual({ baseURL: 'http://env/v1' });
    expect(resolveLlmEndpoint(undefined, undefined, undefined)).toEqual({});
    expect(
      mergeLlmConfig(
        { model: 'a', prices: { a: { input: 1, output: 1 } } },
        { prices: { b: { input: 2, output: 2 } } },
      ),
    ).toEqual({ model: 'a', prices: { a: { input: 1, output: 1 }, b: { input: 2, output: 2 } } });
  });

  it('estimates a cost from tokens and a price, and says "unknown" without a price', () => {
    expect(estimateCost({ input: 0.15, output: 0.6 }, 1_000_000, 500_000)).toBe(0.45);
    expect(estimateCost({ input: 2.5, output: 10 }, 1234, 567)).toBe(0.008755);
    expect(estimateCost(undefined, 1234, 567)).toBe('unknown');
  });
});
