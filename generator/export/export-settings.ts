/**
 * The export's flags, parsed the same way for `equisql export` and `equisql generate`.
 */
import { ConfigError } from '../common/errors.ts';
import { EXPORT_FORMATS, type ExportFormat } from './export-dataset.ts';
import { DEFAULT_RATIOS, parseRatios, SPLIT_KINDS, type SplitKind, type SplitRatios } from './split-assign.ts';

export interface ExportSettings {
  readonly split: SplitKind;
  readonly ratios: SplitRatios;
  readonly formats: readonly ExportFormat[];
}

/**
 * `--split`, `--ratios`, `--formats` → settings; defaults `random`, 0.8/0.1/0.1, every format.
 *
 * @example
 * exportSettings('export', { split: 'skeleton', formats: 'jsonl,parquet' });
 */
export function exportSettings(command: string, flags: { split?: string | undefined; ratios?: string | undefined; formats?: string | undefined }): ExportSettings {
  const split = (flags.split ?? 'random') as SplitKind;
  if (!SPLIT_KINDS.includes(split)) throw new ConfigError(`${command}: --split must be one of ${SPLIT_KINDS.join(', ')}, got "${flags.split}"`);
  const ratios = flags.ratios === undefined ? DEFAULT_RATIOS : parseRatios(flags.ratios, `${command}: --ratios`);
  const formats = flags.formats === undefined ? EXPORT_FORMATS : flags.formats.split(',').map((f) => f.trim());
  for (const f of formats) if (!(EXPORT_FORMATS as readonly string[]).includes(f)) throw new ConfigError(`${command}: --formats: unknown format "${f}" (known: ${EXPORT_FORMATS.join(', ')})`);
  return { split, ratios, formats: EXPORT_FORMATS.filter((f) => formats.includes(f)) };
}
