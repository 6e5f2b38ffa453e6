/**
 * Questions a person wrote: groups made from a suite file (`generate --from-suite`) carry
 * their line's question, which is taken as written.
 */
import { sha256 } from '../common/hash.ts';
import type { GroupRecord } from '../generate/group-record.ts';
import type { QuestionRecord } from './question-record.ts';

/**
 * One `precise` question per group whose suite line carried a question; groups without one
 * get none.
 *
 * @example
 * suiteQuestions(groups)[0]; // { style: 'precise', paraphrase: 0, writer: { kind: 'suite' }, check: { kind: 'as-written' }, … }
 */
export function suiteQuestions(groups: readonly GroupRecord[]): QuestionRecord[] {
  return groups.flatMap((g) => {
    const text = g.source?.question;
    if (text === undefined || text.trim() === '') return [];
    return [
      {
        question_id: sha256(`${g.group_id}\u0000precise\u00000`),
        group_id: g.group_id,
        dataset: g.dataset,
        style: 'precise',
        paraphrase: 0,
        question: text,
        evidence: '',
        writer: { kind: 'suite' },
        check: { kind: 'as-written' },
      },
    ];
  });
}
