import { resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { lockDir } from '../assemble/dir-lock.ts';
import { TEMPLATE_STYLES } from '../questions/question-record.ts';
import { checkQuestionSettings, writeQuestions } from '../questions/questions-stage.ts';
import { EXIT, type Command } from './command.ts';
import { parseFlags, required } from './flags.ts';

const USAGE = `usage: equisql questions --dir DIR [--writer template] [--styles S,S,…] [--paraphrases K] [--concurrency K] [--resume]

Reads DIR/groups/*.jsonl and writes DIR/questions/<dataset>.jsonl: one question per
(group, style, paraphrase), written from the group's conceptual query and DIR/er.json.
  --styles       ${TEMPLATE_STYLES.join(',')} (default: all)
  --paraphrases  paraphrases per style, 1–20 (default 3; a style gives at most as many as it has templates)
  --resume       keep the complete lines an earlier run wrote and continue after them
  --concurrency  parallel requests of an LLM writer (the template writer runs in one thread)`;

const FLAGS = {
  dir: { type: 'string' },
  writer: { type: 'string' },
  styles: { type: 'string' },
  paraphrases: { type: 'string' },
  concurrency: { type: 'string' },
  resume: { type: 'boolean' },
} as const;

export const command: Command = {
  name: 'questions',
  summary: 'write questions for the verified groups of a directory',
  usage: USAGE,
  async run(args, io) {
    const flags = parseFlags('questions', args, FLAGS);
    const dir = resolve(process.cwd(), required('questions', 'dir', flags.dir));
    const writer = flags.writer ?? 'template';
    if (writer === 'llm') throw new ConfigError('questions: --writer llm is not available in this version (only the template writer is)');
    if (writer !== 'template') throw new ConfigError(`questions: --writer must be template or llm, got "${writer}"`);
    const paraphrases = flags.paraphrases === undefined ? 3 : /^\d+$/u.test(flags.paraphrases) ? Number(flags.paraphrases) : NaN;
    if (Number.isNaN(paraphrases)) throw new ConfigError(`questions: --paraphrases must be a whole number from 1 to 20, got "${flags.paraphrases}"`);
    if (flags.concurrency !== undefined && !/^[1-9]\d{0,2}$/u.test(flags.concurrency)) throw new ConfigError(`questions: --concurrency must be a whole number from 1 to 999, got "${flags.concurrency}"`);
    const styles = checkQuestionSettings(flags.styles === undefined ? TEMPLATE_STYLES : flags.styles.split(',').map((s) => s.trim()), paraphrases);
    const release = lockDir(dir, 'questions');
    try {
      writeQuestions({ dir, writer: 'template', styles, paraphrases, resume: flags.resume ?? false, progress: io.err });
    } finally {
      release();
    }
    return EXIT.ok;
  },
};
