import type { Domain } from '../er-model/er-model.ts';
import { retail } from './retail.ts';
import { socialMedia } from './social-media.ts';

export { retail, socialMedia };

/** The reference domains that ship with equisql, by dataset name. */
export const BUILT_IN_DOMAINS: Readonly<Record<string, Domain>> = Object.freeze({
  social_media: socialMedia,
  retail,
});
