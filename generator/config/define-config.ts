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
  /** The dataset card's metadata (Hugging Face front matter); see `CARD_DEFAULTS`. */
  readonly card?: CardMetadata;
}

/**
 * What the dataset card says of the data's terms and kind. The data is yours: equisql does
 * not choose its licence, so the default is `unknown` until you set one (an identifier of
 * https://hf.co/docs/hub/repositories-licenses, or `other` with `license_name`).
 */
export interface CardMetadata {
  readonly license?: string;
  /** With `license: other`: the licence's id, and a link to its text (a URL or a file of the folder). */
  readonly license_name?: string;
  readonly license_link?: string;
  readonly pretty_name?: string;
  readonly annotations_creators?: readonly string[];
  readonly language?: readonly string[];
  readonly task_categories?: readonly string[];
  readonly source_datasets?: readonly string[];
  readonly tags?: readonly string[];
}

/** The card's metadata when the config does not set it. */
export const CARD_DEFAULTS = {
  license: 'unknown',
  annotations_creators: ['machine-generated'],
  language: ['en'],
  task_categories: ['table-question-answering', 'text-generation'],
  source_datasets: ['original'],
  tags: ['text-to-sql', 'sql', 'postgresql', 'synthetic'],
} as const satisfies CardMetadata;

export interface EquisqlConfig {
  readonly datasets: Readonly<Record<string, DatasetDefinition>>;
  /**
   * Corpora (`equisql generate --corpus NAME`): lists of databases, each a dataset of this
   * config, a built-in domain, a .json model, a folder of them, or a database to import
   * (generator/config/corpus.ts). Paths are relative to the config.
   */
  readonly corpora?: Readonly<Record<string, readonly string[]>>;
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
