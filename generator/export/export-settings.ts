/**
 * The export's flags, parsed the same way for `equisql export` and `equisql generate`.
 */
import { ConfigError } from '../common/errors.ts';
import { EVALUATOR_FORMATS } from './formats/evaluator-formats.ts';
import { RL_FORMATS } from './rl/rl-formats.ts';
import { DEFAULT_RATIOS, parseRatios, SPLIT_KINDS, type SplitKind, type SplitRatios } from './split-assign.ts';
import { PROMPT_SCHEMAS, type PromptSchema } from './prompt-schema.ts';
import { DEFAULT_ROW_CONTROLS, type RowControls } from './row-selection.ts';

export const EXPORT_FORMATS = [
  'jsonl',
  'parquet',
  'chat',
  'prompt',
  'chat-parquet',
  'prompt-parquet',
  ...EVALUATOR_FORMATS,
  ...RL_FORMATS,
] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** What an export writes unless `--formats` says otherwise; the fine-tuning files as Parquet are asked for. */
export const DEFAULT_FORMATS: readonly ExportFormat[] = ['jsonl', 'parquet', 'chat', 'prompt'];

export interface ExportSettings {
  readonly split: SplitKind;
  readonly ratios: SplitRatios;
  readonly formats: readonly ExportFormat[];
  readonly promptSchema: PromptSchema;
  readonly rows: RowControls;
}

/** The flags `exportSettings` reads. */
export interface ExportFlagValues {
  split?: string | undefined;
  ratios?: string | undefined;
  formats?: string | undefined;
  'prompt-schema'?: string | undefined;
  'variants-per-question'?: string | undefined;
  'paraphrases-per-style'?: string | undefined;
  'max-rows'?: string | undefined;
  'keep-duplicates'?: boolean | undefined;
}

/** A whole number of at least 1, or `all` where that is allowed; a ConfigError naming the flag otherwise. */
function count(
  command: string,
  flag: string,
  text: string | undefined,
  fallback: number | 'all',
  all: boolean,
): number | 'all' {
  if (text === undefined) return fallback;
  if (all && text === 'all') return 'all';
  if (!/^[1-9]\d{0,8}$/u.test(text))
    throw new ConfigError(
      `${command}: --${flag} must be a whole number of at least 1${all ? ' or all' : ''}, got "${text}"`,
    );
  return Number(text);
}

/**
 * The export's flags → settings; defaults `random`, 0.8/0.1/0.1, every format, compact
 * prompt schemas, `DEFAULT_ROW_CONTROLS`.
 *
 * @example
 * exportSettings('export', { split: 'skeleton', formats: 'jsonl,parquet', 'variants-per-question': '3' });
 */
export function exportSettings(command: string, flags: ExportFlagValues): ExportSettings {
  const split = (flags.split ?? 'random') as SplitKind;
  if (!SPLIT_KINDS.includes(split))
    throw new ConfigError(`${command}: --split must be one of ${SPLIT_KINDS.join(', ')}, got "${flags.split}"`);
  const ratios = flags.ratios === undefined ? DEFAULT_RATIOS : parseRatios(flags.ratios, `${command}: --ratios`);
  const formats: readonly string[] =
    flags.formats === undefined ? DEFAULT_FORMATS : flags.formats.split(',').map((f) => f.trim());
  for (const f of formats)
    if (!(EXPORT_FORMATS as readonly string[]).includes(f))
      throw new ConfigError(`${command}: --formats: unknown format "${f}" (known: ${EXPORT_FORMATS.join(', ')})`);
  const promptSchema = (flags['prompt-schema'] ?? 'compact') as PromptSchema;
  if (!PROMPT_SCHEMAS.includes(promptSchema))
    throw new ConfigError(
      `${command}: --prompt-schema must be one of ${PROMPT_SCHEMAS.join(', ')}, got "${flags['prompt-schema']}"`,
    );
  const maxRows = count(command, 'max-rows', flags['max-rows'], 'all', false);
  const rows: RowControls = {
    variantsPerQuestion: count(
      command,
      'variants-per-question',
      flags['variants-per-question'],
      DEFAULT_ROW_CONTROLS.variantsPerQuestion,
      true,
    ),
    paraphrasesPerStyle: count(
      command,
      'paraphrases-per-style',
      flags['paraphrases-per-style'],
      DEFAULT_ROW_CONTROLS.paraphrasesPerStyle,
      true,
    ),
    dedupe: flags['keep-duplicates'] !== true,
    ...(maxRows !== 'all' ? { maxRows } : {}),
  };
  return { split, ratios, formats: EXPORT_FORMATS.filter((f) => formats.includes(f)), promptSchema, rows };
}
