/**
 * A questions file of K plain paraphrases per group, for the benchmarks that need many rows
 * without the questions stage: written beside the groups and sealed in the manifest as the
 * stage seals its own file, so the export reads it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../generator/common/hash.ts';
import { sealFile, updateSeals } from '../generator/common/file-seal.ts';
import { readJsonLines, groupsPath } from '../generator/records/groups-file.ts';
import type { GroupRecord } from '../generator/records/group-record.ts';
import { serializeQuestion, type QuestionRecord } from '../generator/records/question-record.ts';

export function writeSuiteParaphrases(out: string, dataset: string, paraphrases: number): QuestionRecord[] {
  const groups = readJsonLines<GroupRecord>(groupsPath(out, dataset), false);
  const questions: QuestionRecord[] = groups.flatMap((g) =>
    Array.from({ length: paraphrases }, (_, p) => ({
      question_id: sha256(`${g.group_id}\u0000precise\u0000${p}`),
      group_id: g.group_id,
      dataset: g.dataset,
      style: 'precise' as const,
      paraphrase: p,
      question: `${g.source?.question ?? g.group_id} (paraphrase ${p})`,
      evidence: '',
      writer: { kind: 'suite' as const },
      check: { kind: 'as-written' as const },
    })),
  );
  const rel = `questions/${dataset}.jsonl`;
  mkdirSync(join(out, 'questions'), { recursive: true });
  writeFileSync(join(out, rel), questions.map(serializeQuestion).join(''));
  updateSeals(out, { [rel]: sealFile(join(out, rel)) });
  return questions;
}
