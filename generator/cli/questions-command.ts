import { join, resolve } from 'node:path';
import { openDatabase, resolveTarget } from '../database/database.ts';
import { ConfigError } from '../common/errors.ts';
import { lockDir } from '../assemble/dir-lock.ts';
import { TEMPLATE_STYLES } from '../records/question-record.ts';
import { loadConfig } from '../config/load-config.ts';
import { resolveLlmEndpoint } from '../config/llm-config.ts';
import { ownValue } from '../common/user-text.ts';
import { checkQuestionSettings, writeQuestions } from '../questions/questions-stage.ts';
import { checkBaseUrl } from '../questions/llm-client.ts';
import { probeEndpoint } from '../questions/endpoint-probe.ts';
import { EXIT, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';

const FLAGS = {
  dir: { type: 'string', value: 'DIR', required: true, help: 'a directory equisql generate wrote (its groups/)' },
  writer: {
    type: 'string',
    value: 'template|llm',
    help: "template (default, offline) or llm: TACO's three phases through an OpenAI-compatible endpoint (the config's llm.baseURL, else OPENAI_BASE_URL; OPENAI_API_KEY); a question is kept only if its back-translation, run on the reference variant, gives the group's answer; others go to DIR/questions-rejections.jsonl",
  },
  styles: {
    type: 'string',
    value: 'S,S,…',
    help: `question styles, of ${TEMPLATE_STYLES.join(', ')} (default: natural ×3, each a different sentence plan; the precise style reads as a specification, not a question, and is written only when asked for; with --styles or --paraphrases, each style asked gets K paraphrases)`,
  },
  paraphrases: {
    type: 'string',
    value: 'K',
    help: 'paraphrases per style, 1 to 20 (default 3; a style gives at most as many as it has templates)',
  },
  concurrency: { type: 'string', value: 'K', help: 'groups written at once by the LLM writer (default 4)' },
  resume: { type: 'boolean', help: 'keep the complete lines an earlier run wrote and continue after them' },
  'llm-model': { type: 'string', value: 'M', help: "the LLM writer's model (default: the config's llm.model)" },
  'llm-budget': {
    type: 'string',
    value: 'TOKENS',
    help: 'tokens after which no further request is sent (reserved before each request, so --concurrency K overruns it by at most K requests; the run stops cleanly; --resume continues)',
  },
  db: {
    type: 'string',
    value: 'URL',
    help: "the build's database, where back-translations run (default DATABASE_URL, else DIR/pglite)",
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: 'the datasets.config.ts whose llm section (model, baseURL, prices) applies; tokens and the cost estimated from llm.prices go to DIR/manifest.json ("questions")',
  },
} as const satisfies FlagTable;

const DETAILS = `Reads DIR/groups/*.jsonl and DIR/er.json and writes DIR/questions/<dataset>.jsonl: one
question per (group, style, paraphrase), written from the group's conceptual query (format:
docs/records.md). --resume keeps the complete lines an earlier (killed) run wrote and
continues, giving the bytes of an uninterrupted run; generate runs this stage after the
groups with the defaults.

The LLM writer (prompts in templates/llm/) caches replies in DIR/questions/.llm-cache/, so a
rerun sends nothing; tokens and requests go to DIR/manifest.json ("questions": usage,
tokens_in, tokens_out, price_per_million_tokens, estimated_cost_usd — this run's, so a rerun
from the cache costs 0; "unknown" for a model without a price). Progress lines give the
rate and an ETA. A reply is untrusted: cut bodies are retried, replies over 256 KiB or with
usage that is not counts are refused, and text with control characters or lone surrogates
is rejected (docs/configuration.md). Lines go to questions/.<dataset>.jsonl.partial, renamed
over the file at the end, so a failed run leaves the earlier file as it was.`;

export const command: Command = {
  name: 'questions',
  summary: 'write questions for the verified groups of a directory',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('questions', args, FLAGS).values;
    const dir = resolve(process.cwd(), required('questions', 'dir', flags.dir));
    const writer = flags.writer ?? 'template';
    if (writer !== 'template' && writer !== 'llm')
      throw new ConfigError(`questions: --writer must be template or llm, got "${writer}"`);
    const paraphrases =
      flags.paraphrases === undefined ? 3 : /^\d+$/u.test(flags.paraphrases) ? Number(flags.paraphrases) : NaN;
    // The template writer without --styles or --paraphrases writes the default plan (natural ×3).
    const planned = writer === 'template' && flags.styles === undefined && flags.paraphrases === undefined;
    if (Number.isNaN(paraphrases))
      throw new ConfigError(`questions: --paraphrases must be a whole number from 1 to 20, got "${flags.paraphrases}"`);
    if (flags.concurrency !== undefined && !/^[1-9]\d{0,2}$/u.test(flags.concurrency))
      throw new ConfigError(
        `questions: --concurrency must be a whole number from 1 to 999, got "${flags.concurrency}"`,
      );
    const styles = checkQuestionSettings(
      flags.styles === undefined
        ? TEMPLATE_STYLES.filter((s) => writer === 'template' || s !== 'natural')
        : flags.styles.split(',').map((s) => s.trim()),
      paraphrases,
    );
    if (flags['llm-budget'] !== undefined && !/^[1-9]\d*$/u.test(flags['llm-budget']))
      throw new ConfigError(`questions: --llm-budget must be a whole number of tokens, got "${flags['llm-budget']}"`);
    const budget = flags['llm-budget'] === undefined ? undefined : Number(flags['llm-budget']);
    if (flags['llm-model'] !== undefined && !/^\S{1,200}$/u.test(flags['llm-model']))
      throw new ConfigError(
        `questions: --llm-model must be a model name without spaces, got "${flags['llm-model'].slice(0, 40)}"`,
      );
    // The config matters to the LLM writer only; the template writer reads it only when named (to check it).
    const llmConfig =
      writer === 'llm' || flags.config !== undefined
        ? (await loadConfig(flags.config, process.cwd())).config.llm
        : undefined;
    const { model, baseURL } = resolveLlmEndpoint(llmConfig, flags['llm-model'], io.env['OPENAI_BASE_URL']);
    if (writer === 'llm' && !baseURL)
      throw new ConfigError('questions: --writer llm needs an endpoint: OPENAI_BASE_URL or llm.baseURL in the config');
    // The config's baseURL was checked with the config; the environment's is checked here, before anything is sent.
    if (writer === 'llm' && baseURL && llmConfig?.baseURL === undefined)
      checkBaseUrl(baseURL, 'questions: OPENAI_BASE_URL');
    if (writer === 'llm' && !model)
      throw new ConfigError('questions: --writer llm needs a model: --llm-model or llm.model in the config');
    const price = model && llmConfig?.prices ? ownValue(llmConfig.prices, model) : undefined;
    if (writer === 'llm' && baseURL) await probeEndpoint(baseURL, 'questions --writer llm');
    const release = lockDir(dir, 'questions');
    const target = resolveTarget(flags.db ?? io.env['DATABASE_URL'], join(dir, 'pglite'));
    const db = writer === 'llm' ? await openDatabase(target) : undefined;
    try {
      // A lost connection is reopened (a bounded number of times) and the back-translation run again.
      const reopen = () => openDatabase(target);
      const llm =
        db && baseURL && model
          ? {
              baseURL,
              apiKey: io.env['OPENAI_API_KEY'] ?? 'unused',
              model,
              db,
              reopen,
              concurrency: flags.concurrency ? Number(flags.concurrency) : 4,
              ...(budget ? { budget } : {}),
              ...(price ? { price } : {}),
            }
          : undefined;
      await writeQuestions({
        dir,
        writer,
        ...(planned ? {} : { styles, paraphrases }),
        resume: flags.resume ?? false,
        progress: io.err,
        ...(llm ? { llm } : {}),
      });
    } finally {
      await db?.close();
      release();
    }
    return EXIT.ok;
  },
};
