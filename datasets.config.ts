import { defineConfig } from './generator/config/define-config.ts';

/**
 * The datasets `equisql build --dataset NAME` knows. A `datasets.config.ts` in the working
 * directory replaces this one; `--config FILE` names another.
 */
export default defineConfig({
  datasets: {
    social_media: {
      domain: 'social_media',
      description: "Accounts, creators, streamers, content, clips and channels (the paper's running example)",
      scale: 'small',
      seed: 1,
      difficulty: { easy: 0.2, medium: 0.35, hard: 0.25, extra: 0.2 },
      tail: 0.1,
    },
    retail: {
      domain: 'retail',
      description: "Products in two inheritance levels, users, orders and reviews (the paper's Appendix A)",
      scale: 'small',
      seed: 1,
      difficulty: { easy: 0.2, medium: 0.35, hard: 0.25, extra: 0.2 },
      tail: 0.1,
    },
    social_media_edge: {
      domain: 'social_media',
      description: 'social_media with NULLs, empty sets, partnerless objects, ties and odd text at high rates',
      scale: 'small',
      seed: 3,
      profile: 'edge',
    },
    retail_edge: {
      domain: 'retail',
      description: 'retail with NULLs, empty sets, partnerless objects, ties and odd text at high rates',
      scale: 'small',
      seed: 3,
      profile: 'edge',
    },
  },
  // Corpora for `equisql generate --corpus NAME`: databases generated in one run, each with
  // its db_id (entries: datasets above, built-in domains, .json models, folders of them).
  corpora: {
    built_in: ['social_media', 'retail'],
  },
  // The LLM question writer (`equisql questions --writer llm`): the model it asks unless
  // --llm-model names another, and prices in dollars per million tokens as the providers
  // list them (check them before trusting a cost). The endpoint is OPENAI_BASE_URL unless
  // `baseURL` is set here. A model without a price gets an "unknown" cost in the manifest.
  llm: {
    model: 'gpt-4o-mini',
    prices: {
      'gpt-4o-mini': { input: 0.15, output: 0.6 },
      'gpt-4o': { input: 2.5, output: 10 },
      'gpt-4.1-mini': { input: 0.4, output: 1.6 },
      'gpt-4.1': { input: 2, output: 8 },
    },
  },
});
