/**
 * Questions a person wrote: groups made from a suite file (`generate --from-suite`) carry
 * their line's question, which is taken as written.
 */
import type { GroupRecord } from '../records/group-record.ts';
import { questionId, type QuestionRecord } from '../records/question-record.ts';

/** The person's question of a group, when its suite line carried one. */
export function suiteQuestion(group: GroupRecord): QuestionRecord | undefined {
  const text = group.source?.question;
  if (text === undefined || text.trim() === '') return undefined;
  return {
    question_id: questionId(group.group_id, 'precise', 0, 'suite'),
    group_id: group.group_id,
    dataset: group.dataset,
    style: 'precise',
    paraphrase: 0,
    question: text,
    evidence: '',
    writer: { kind: 'suite' },
    check: { kind: 'as-written' },
  };
}

/**
 * One `precise` question per group whose suite line carried a question; groups without one
 * get none.
 *
 * @example
 * suiteQuestions(groups)[0]; // { style: 'precise', paraphrase: 0, writer: { kind: 'suite' }, check: { kind: 'as-written' }, … }
 */
export function suiteQuestions(groups: readonly GroupRecord[]): QuestionRecord[] {
  return groups.flatMap((g) => suiteQuestion(g) ?? []);
}
