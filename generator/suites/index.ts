import type { Suite } from './suite.ts';
import { PAPER_SOCIAL_MEDIA } from './paper-social-media.ts';
import { PAPER_RETAIL } from './paper-retail.ts';

/** The suites `equisql suite --suite NAME` knows. */
export const SUITES: Readonly<Record<string, Suite>> = {
  paper: {
    name: 'paper',
    description:
      "The fifteen social_media questions of the paper's Section 2.3 and the fifteen retail questions of its Appendix A",
    domains: { social_media: PAPER_SOCIAL_MEDIA, retail: PAPER_RETAIL },
  },
};
