/** What an evaluator format writes for one split. */
export interface EvaluatorFile {
  /** Path relative to the export's directory. */
  readonly rel: string;
  /** The file's text, a piece at a time. */
  readonly lines: Iterable<string>;
  /** The records it holds (the manifest's `rows` of the file). */
  readonly count: number;
}

/** The folder the evaluator formats write into, one subfolder a format. */
export const EVALUATOR_DIR = 'evaluators';
