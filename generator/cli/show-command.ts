import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { createRng } from '../common/rng.ts';
import { escapeControl, escapeControlKeepLines } from '../common/user-text.ts';
import { readJsonLines } from '../records/groups-file.ts';
import type { GroupRecord } from '../records/group-record.ts';
import type { QuestionRecord } from '../records/question-record.ts';
import { EXIT, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';

const FLAGS = {
  dir: {
    type: 'string',
    value: 'DIR',
    required: true,
    help: 'a directory with questions/ (equisql generate or questions wrote it)',
  },
  n: { type: 'string', value: 'N', short: 'n', help: 'how many questions, 1 to 10000 (default 5)' },
  seed: { type: 'string', value: 'S', help: 'seed of the draw (default 1)' },
  style: {
    type: 'string',
    value: 'STYLE|all',
    help: 'the style shown (default natural, the question a user types; all: every style)',
  },
} as const satisfies FlagTable;

const DETAILS = `Prints N questions of DIR/questions/*.jsonl drawn at random, each with its style and
evidence, then the SQL of one variant of its group.`;

export const command: Command = {
  name: 'show',
  summary: 'print random questions with the SQL of one variant, for a person to read',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('show', args, FLAGS).values;
    const dir = resolve(process.cwd(), required('show', 'dir', flags.dir));
    const n = flags.n === undefined ? 5 : /^\d+$/u.test(flags.n) ? Number(flags.n) : NaN;
    if (!(n >= 1 && n <= 10_000))
      throw new ConfigError(`show: -n must be a whole number from 1 to 10000, got "${flags.n}"`);
    const seed = flags.seed ?? '1';
    if (!/^-?\d+$/u.test(seed)) throw new ConfigError(`show: --seed must be a whole number, got "${seed}"`);
    const qdir = join(dir, 'questions');
    if (!existsSync(qdir)) throw new ConfigError(`show: --dir: ${dir} has no questions/ (run equisql questions first)`);
    const questions: QuestionRecord[] = [];
    const groups = new Map<string, GroupRecord>();
    for (const file of readdirSync(qdir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()) {
      questions.push(...readJsonLines<QuestionRecord>(join(qdir, file), false));
      for (const g of readJsonLines<GroupRecord>(join(dir, 'groups', file), false)) groups.set(g.group_id, g);
    }
    if (questions.length === 0) throw new ConfigError(`show: ${qdir} holds no question`);
    const style = flags.style ?? 'natural';
    const shown = style === 'all' ? questions : questions.filter((q) => q.style === style);
    if (shown.length === 0)
      throw new ConfigError(
        `show: --style: ${qdir} holds no ${style} question (styles there: ${[...new Set(questions.map((q) => q.style))].join(', ')}; --style all shows every one)`,
      );
    const rng = createRng(`show/${seed}`);
    const picked = rng.sample(shown, Math.min(n, shown.length));
    const blocks = picked.map((q) => {
      const g = groups.get(q.group_id);
      if (!g)
        throw new ConfigError(`show: question ${q.question_id} names group ${q.group_id}, which no groups file holds`);
      const variant = rng.pick(Object.keys(g.variants).sort());
      // Text from files is shown, never obeyed: an escape sequence in a question or in SQL prints as \u001b.
      const lines = [escapeControl(`[${q.dataset} ${q.style}#${q.paraphrase} ${q.writer.kind}] ${q.question}`)];
      if (q.evidence) lines.push(`evidence: ${escapeControl(q.evidence)}`);
      lines.push(`-- ${escapeControl(variant)}`, escapeControlKeepLines(g.variants[variant]?.sql ?? ''));
      return lines.join('\n');
    });
    io.out(`${blocks.join('\n\n')}\n`);
    return EXIT.ok;
  },
};
