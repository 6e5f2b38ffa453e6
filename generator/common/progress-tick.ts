/**
 * How long work reports how far it is: a count of done units out of a total, per stage.
 * Library code calls a `ProgressTick` callback; the CLI decides how to show it (a bar on a
 * terminal, periodic lines otherwise, nothing under --quiet).
 */

/** The stages that report counts. */
export type ProgressStage = 'groups' | 'shard' | 'questions' | 'export';

export interface ProgressCount {
  readonly stage: ProgressStage;
  /** Units done so far (groups accepted, groups with their questions, rows written). */
  readonly done: number;
  /** Units the stage will have done at its end (its target). */
  readonly total: number;
  /** What is counted, plural: `groups`, `rows`. */
  readonly unit: string;
}

/** Called after each unit of work (or a batch of them); cheap, so callers need not throttle. */
export type ProgressTick = (count: ProgressCount) => void;
