import type { Domain } from '../er-model/er-model.ts';
import type { InstanceProfile, ScalePreset } from '../instance/conceptual-instance.ts';
import type { LlmConfig } from './llm-config.ts';

/** One dataset a user can build: a domain and how to populate and shred it. */
export interface DatasetDefinition {
  /** A domain object, a built-in domain's name, or a path to a JSON model (relative to the config). */
  readonly domain: Domain | string;
  readonly description?: string;
  readonly scale?: ScalePreset;
  readonly seed?: number | string;
  readonly profile?: InstanceProfile;
  /** Instance counts per root entity, overriding the scale preset. */
  readonly counts?: Readonly<Record<string, number>>;
  /** `all`, a comma list of variant names, `random:K`, or a mix: `all,random:8`. */
  readonly variants?: string;
  /** `equisql generate`: target shares of Spider difficulties; without it, the mix falls as drawn. */
  readonly difficulty?: Readonly<Partial<Record<'easy' | 'medium' | 'hard' | 'extra', number>>>;
  /** `equisql generate`: share of long-tail skeletons (default 0.1). */
  readonly tail?: number;
}

export interface EquisqlConfig {
  readonly datasets: Readonly<Record<string, DatasetDefinition>>;
  /** The LLM question writer's model, endpoint and per-model prices (see llm-config.ts). */
  readonly llm?: LlmConfig;
}

/**
 * Types a config file; returns it unchanged.
 * @example
 * export default defineConfig({ datasets: { shop: { domain: './shop.json', scale: 'small' } } });
 */
export function defineConfig(config: EquisqlConfig): EquisqlConfig {
  return config;
}

/** What `build` uses when neither flags nor the dataset say otherwise. */
export const DEFAULTS = {
  scale: 'small' as ScalePreset,
  seed: 1 as number | string,
  profile: 'default' as InstanceProfile,
  variants: 'all',
} as const;
