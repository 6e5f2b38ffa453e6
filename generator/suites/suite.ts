import type { Query } from '../query/conceptual-query.ts';

/** One question of a suite: its text and its conceptual query. */
export interface SuiteQuestion {
  /** `q01` … */
  readonly id: string;
  readonly question: string;
  readonly query: Query;
}

/** A named suite: questions per domain. */
export interface Suite {
  readonly name: string;
  readonly description: string;
  readonly domains: Readonly<Record<string, readonly SuiteQuestion[]>>;
}
