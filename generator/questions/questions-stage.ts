/**
 * The questions stage: reads `DIR/groups/*.jsonl`, writes `DIR/questions/<dataset>.jsonl`,
 * one question per (group, style, paraphrase). Lines come out in a fixed order (groups in
 * file order; for each, a person's question first, then styles in the order asked and
 * paraphrases 0…K−1), each a pure function of the group and the settings, so the same input
 * always gives the same bytes, and a resumed run — which keeps the complete lines already
 * written and continues after them — gives the bytes of an uninterrupted one.
 *
 * A new run writes beside the file and swaps its own in when its dataset is done (or the
 * token budget stopped it cleanly), so a run that fails — an endpoint that refuses the model,
 * a database that cannot be reopened — leaves what an earlier run wrote as it was; a resume
 * appends to the file, which is sealed again when closed. The LLM writer's rejections are
 * rebuilt per dataset, so a rerun keeps no rejection that its own questions contradict.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { ConfigError, LlmError, LoadError } from '../common/errors.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { LlmBudgetSpent } from './llm-client.ts';
import { openLlmWriter, recordLlmUsage, type LlmSettings, type LlmWriterRun } from './llm-questions.ts';
import { indexDomain, type ErIndex } from '../er-model/er-index.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { appendLine, readGroups, readJsonLines, readRecords } from '../records/groups-file.ts';
import { checkSeal, readSeals, refuseNonFile, sealFile, updateSeals } from '../common/file-seal.ts';
import type { GroupRecord } from '../records/group-record.ts';
import {
  DEFAULT_QUESTION_PLAN,
  questionId,
  questionShape,
  serializeQuestion,
  TEMPLATE_STYLES,
  type QuestionRecord,
  type QuestionStyle,
} from '../records/question-record.ts';
import { paraphraseCount, writeTemplateQuestions } from './template-writer.ts';
import { suiteQuestion } from './suite-questions.ts';
import type { ProgressTick } from '../common/progress-tick.ts';

export type { LlmSettings } from './llm-questions.ts';

export interface QuestionsOptions {
  readonly dir: string;
  readonly writer?: 'template' | 'llm';
  /** Required with writer `llm`. */
  readonly llm?: LlmSettings;
  readonly styles?: readonly QuestionStyle[];
  readonly paraphrases?: number;
  /** Continue after the complete lines an earlier run left; otherwise start each file anew. */
  readonly resume?: boolean;
  readonly progress?: (line: string) => void;
  /** Groups done out of the file's, after each (the CLI draws a bar or prints lines). */
  readonly tick?: ProgressTick;
}

export interface QuestionsReport {
  /** Per dataset: records in the file at the end, and how many this run wrote. */
  readonly datasets: readonly { readonly dataset: string; readonly records: number; readonly written: number }[];
}

/** `DIR/questions/<dataset>.jsonl` */
export function questionsPath(dir: string, dataset: string): string {
  return join(dir, 'questions', `${dataset}.jsonl`);
}

/** `DIR/questions-rejections.jsonl`: the LLM writer's questions not kept, one a line, with the reason. */
export function questionRejectionsPath(dir: string): string {
  return join(dir, 'questions-rejections.jsonl');
}

/**
 * Rewrites the rejections file with `lines` as the rejections of `groupIds`' groups: lines of
 * other groups (other datasets') stay, every earlier line of these groups goes.
 */
function replaceRejections(dir: string, groupIds: ReadonlySet<string>, lines: readonly string[]): void {
  const path = questionRejectionsPath(dir);
  const kept = readJsonLines<{ group_id?: unknown }>(path, false)
    .filter((r) => !(typeof r.group_id === 'string' && groupIds.has(r.group_id)))
    .map((r) => `${JSON.stringify(r)}\n`);
  const all = [...kept, ...lines];
  if (all.length === 0 && !existsSync(path)) return;
  writeFileAtomic(path, all.join(''));
}

/** Checks the styles and paraphrase count a caller asked for; one-line errors. */
export function checkQuestionSettings(styles: readonly string[], paraphrases: number): QuestionStyle[] {
  for (const s of styles) {
    if (!(TEMPLATE_STYLES as readonly string[]).includes(s))
      throw new ConfigError(`questions: --styles: unknown style "${s}" (known: ${TEMPLATE_STYLES.join(', ')})`);
  }
  if (new Set(styles).size !== styles.length) throw new ConfigError(`questions: --styles names a style twice`);
  if (!Number.isInteger(paraphrases) || paraphrases < 1 || paraphrases > 20)
    throw new ConfigError(`questions: --paraphrases must be a whole number from 1 to 20, got ${paraphrases}`);
  return styles as QuestionStyle[];
}

/** The records of one group, in file order; `paraphrases` is one count for every style, or a count per style. */
export function questionsOfGroup(
  index: ErIndex,
  group: GroupRecord,
  styles: readonly QuestionStyle[],
  paraphrases: number | Readonly<Partial<Record<QuestionStyle, number>>>,
): QuestionRecord[] {
  const records: QuestionRecord[] = [];
  const person = suiteQuestion(group);
  if (person) records.push(person);
  // A style has as many distinct paraphrases as templates; asking more gives those.
  const count = (style: QuestionStyle) => (typeof paraphrases === 'number' ? paraphrases : (paraphrases[style] ?? 1));
  const wanted = styles.flatMap((style) =>
    Array.from({ length: Math.min(count(style), paraphraseCount(style)) }, (_, p) => ({ style, paraphrase: p })),
  );
  const written = writeTemplateQuestions(index, group.query, wanted, group.group_id);
  for (const [i, { style, paraphrase: p }] of wanted.entries()) {
    {
      const w = written[i] as (typeof written)[number];
      records.push({
        question_id: questionId(group.group_id, style, p, 'template'),
        group_id: group.group_id,
        dataset: group.dataset,
        style,
        paraphrase: p,
        question: w.question,
        evidence: w.evidence,
        writer: { kind: 'template' },
        check: { kind: 'template-coverage', covered: w.covered },
      });
    }
  }
  return records;
}

/** Reads `DIR/er.json`, the model every group of the directory is over. */
function readModel(dir: string): ErIndex {
  const erPath = join(dir, 'er.json');
  if (!existsSync(erPath))
    throw new ConfigError(`questions: --dir: ${dir} has no er.json (run equisql generate first)`);
  return indexDomain(parseDomainJson(readFileSync(erPath, 'utf8'), erPath));
}

/**
 * Writes the questions files of a directory. Each group's lines are appended together, so a
 * kill leaves whole groups plus at most one cut line, which a resume cuts off and redoes.
 */
export async function writeQuestions(options: QuestionsOptions): Promise<QuestionsReport> {
  // Without styles or a count, the default plan (natural ×3: see DEFAULT_QUESTION_PLAN).
  const planned = options.styles === undefined && options.paraphrases === undefined && options.writer !== 'llm';
  const styles = checkQuestionSettings(
    options.styles ?? (planned ? (Object.keys(DEFAULT_QUESTION_PLAN) as QuestionStyle[]) : TEMPLATE_STYLES),
    options.paraphrases ?? 3,
  );
  const paraphrases = options.paraphrases ?? 3;
  const perStyle = planned ? DEFAULT_QUESTION_PLAN : paraphrases;
  const groupsDir = join(options.dir, 'groups');
  if (!existsSync(groupsDir))
    throw new ConfigError(`questions: --dir: ${options.dir} has no groups/ (run equisql generate first)`);
  const files = readdirSync(groupsDir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  if (files.length === 0) throw new ConfigError(`questions: --dir: ${groupsDir} has no .jsonl file`);
  const index = readModel(options.dir);
  if (options.writer === 'llm' && !options.llm)
    throw new ConfigError('questions: --writer llm needs an endpoint (OPENAI_BASE_URL) and a model (--llm-model)');
  const llm = options.writer === 'llm' && options.llm ? openLlmWriter(options.dir, options.llm, index) : undefined;
  let failed = false;
  try {
    return await writeFiles(options, files, index, styles, perStyle, paraphrases, llm);
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    if (llm) {
      await llm.close();
      try {
        // Every request sent is recorded, a failed run's too: its tokens were spent.
        recordLlmUsage(options.dir, options.llm as LlmSettings, llm.client.usage);
      } catch (error) {
        // A failed run reports why it failed, not a manifest it could not update after it.
        if (!failed) throw error;
      }
    }
  }
}

/** The questions files of `files` (groups files), in order, each through its partial file; see `writeQuestions`. */
async function writeFiles(
  options: QuestionsOptions,
  files: readonly string[],
  index: ErIndex,
  styles: readonly QuestionStyle[],
  perStyle: number | Readonly<Partial<Record<QuestionStyle, number>>>,
  paraphrases: number,
  llm: LlmWriterRun | undefined,
): Promise<QuestionsReport> {
  const groupsDir = join(options.dir, 'groups');
  const report: { dataset: string; records: number; written: number }[] = [];
  const budget = options.llm?.budget;
  const recordsOf = async (group: GroupRecord): Promise<{ records: QuestionRecord[]; rejections: string[] }> => {
    if (!llm) return { records: questionsOfGroup(index, group, styles, perStyle), rejections: [] };
    return llm.recordsOf(group, styles, paraphrases);
  };
  let stopped = false;
  const limit = pLimit(llm ? (options.llm?.concurrency ?? 4) : 1);
  const seals = readSeals(options.dir);
  for (const file of files) {
    const dataset = file.slice(0, -'.jsonl'.length);
    checkSeal(options.dir, `groups/${file}`, seals, 'exact', 'questions', 'rerun equisql generate --resume for it', {
      changed: 'restore it, or generate the groups again into a new --out',
    });
    const groups = readGroups(join(groupsDir, file));
    const out = questionsPath(options.dir, dataset);
    const rel = `questions/${dataset}.jsonl`;
    mkdirSync(join(options.dir, 'questions'), { recursive: true });
    refuseNonFile(out);
    let done = options.resume ? readRecords<QuestionRecord>(out, true, 'a question', questionShape, 'question_id') : [];
    // The lines as written, compared whole with this run's: a changed line is not kept.
    const doneLines = options.resume ? writtenLines(out) : [];
    // A resume appends to the file, which is then no longer what its seal says until closed
    // again; a new run writes beside it and swaps its file in at the end, so a run that fails
    // leaves the earlier file as it was.
    if (options.resume) updateSeals(options.dir, { [rel]: null });
    const target = options.resume ? out : join(options.dir, 'questions', `.${dataset}.jsonl.${process.pid}.tmp`);
    if (!options.resume) writeFileSync(target, '');
    const rejectionLines: string[] = [];
    try {
      let position = 0;
      let written = 0;
      const started = Date.now();
      // Groups are written concurrently (an LLM's latency) but appended in file order.
      // (The template writer is computed group by group: a refused resume stops at once.)
      const pending = llm ? groups.map((group) => limit(() => recordsOf(group))) : undefined;
      for (const p of pending ?? []) p.catch(() => undefined);
      for (const [g, group] of groups.entries()) {
        options.tick?.({ stage: 'questions', done: g, total: groups.length, unit: 'groups' });
        let records: QuestionRecord[];
        let rejections: string[];
        try {
          ({ records, rejections } = await (pending
            ? (pending[g] as Promise<{ records: QuestionRecord[]; rejections: string[] }>)
            : recordsOf(group)));
        } catch (error) {
          limit.clearQueue();
          if (error instanceof LlmBudgetSpent) {
            // Groups before this one are written whole; a rerun with --resume continues here.
            options.progress?.(
              `questions: ${dataset}: the token budget (${budget}) is spent; stopped before group ${g + 1} of ${groups.length} (rerun with --resume to continue)`,
            );
            stopped = true;
            break;
          }
          // The endpoint or the database failed the run: no verdict on this query.
          if (error instanceof LlmError || error instanceof LoadError) throw error;
          throw new ConfigError(
            `questions: ${join(groupsDir, file)}:${g + 1}: cannot write a question for this query: ${(error as Error).message}`,
          );
        }
        // Lines already on disk must be this run's lines: same group, style and paraphrase.
        let fresh = 0;
        while (fresh < records.length && position < done.length) {
          if (done[position]?.question_id !== records[fresh]?.question_id) {
            throw new ConfigError(
              `questions: ${out}:${position + 1}: written with other settings or groups than this run's (start anew without --resume)`,
            );
          }
          if (doneLines[position] !== serializeQuestion(records[fresh] as QuestionRecord)) {
            throw new ConfigError(
              `questions: ${out}:${position + 1}: differs from the line this run writes for its question (changed after it was written?; start anew without --resume)`,
            );
          }
          position++;
          fresh++;
        }
        if (fresh > 0 && fresh < records.length) {
          // A group cut part-way: drop its lines and write the group whole.
          position -= fresh;
          done = done.slice(0, position);
          writeFileSync(out, done.map(serializeQuestion).join(''));
          fresh = 0;
        }
        if (fresh === records.length && records.length > 0) continue;
        // Every group's rejections, a kept group's too (its replies come from the cache): the file is rebuilt.
        rejectionLines.push(...rejections);
        if (records.length === 0) continue;
        appendLine(target, records.map(serializeQuestion).join(''));
        written += records.length;
        if ((g + 1) % (llm ? 10 : 500) === 0) {
          // Rate and ETA for the person watching; wall time never reaches the output files.
          const seconds = (Date.now() - started) / 1000;
          const rate = (g + 1) / Math.max(seconds, 1e-3);
          options.progress?.(
            `questions: ${dataset}: ${g + 1}/${groups.length} groups, ${rate.toFixed(1)} groups/s, about ${Math.ceil((groups.length - g - 1) / rate)} s left`,
          );
        }
      }
      if (!stopped && position < done.length)
        throw new ConfigError(
          `questions: ${out} has more lines than ${join(groupsDir, file)} gives (start anew without --resume)`,
        );
      // Closed (whole, or stopped cleanly at the budget): swapped in and sealed.
      if (target !== out) renameSync(target, out);
      updateSeals(options.dir, { [rel]: sealFile(out) });
      if (llm) replaceRejections(options.dir, new Set(groups.map((g) => g.group_id)), rejectionLines);
      if (stopped) {
        report.push({ dataset, records: position + written, written });
        break;
      }
      options.tick?.({ stage: 'questions', done: groups.length, total: groups.length, unit: 'groups' });
      const records = position + written;
      options.progress?.(
        `questions: ${dataset}: ${records} questions for ${groups.length} groups (${written} written now) in ${out}`,
      );
      report.push({ dataset, records, written });
    } finally {
      if (target !== out) rmSync(target, { force: true });
    }
  }
  return { datasets: report };
}

/** A file's complete lines, each with its newline. */
function writtenLines(path: string): string[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split(/(?<=\n)/u)
    .filter((l) => l !== '');
}

/**
 * The questions stage as `equisql generate` runs it after the groups: default settings,
 * continuing what an earlier run wrote, and starting the files anew when they were written
 * for other groups (a rerun into a directory whose groups changed).
 */
export async function writeQuestionsAfterGroups(
  dir: string,
  progress?: (line: string) => void,
  tick?: ProgressTick,
): Promise<QuestionsReport> {
  try {
    return await writeQuestions({ dir, resume: true, ...(progress ? { progress } : {}), ...(tick ? { tick } : {}) });
  } catch (error) {
    if (!(error instanceof ConfigError) || !error.message.includes('start anew')) throw error;
    progress?.(`questions: ${error.message.replace(/ \(start anew.*$/u, '')}; writing them anew`);
    return await writeQuestions({ dir, resume: false, ...(progress ? { progress } : {}), ...(tick ? { tick } : {}) });
  }
}
