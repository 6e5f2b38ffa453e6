import { basename, join, resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { createRng } from '../common/rng.ts';
import { ownValue } from '../common/user-text.ts';
import { loadConfig } from '../config/load-config.ts';
import { estimateCost, resolveLlmEndpoint } from '../config/llm-config.ts';
import { openDatabase, type Database } from '../database/database.ts';
import { targetOf } from '../assemble/verify-dataset.ts';
import { lockDir, refuseIfLocked } from '../assemble/dir-lock.ts';
import { createLlmClient, type LlmClient } from '../questions/llm-client.ts';
import { probeEndpoint } from '../questions/endpoint-probe.ts';
import { readEvalInputs } from '../eval/eval-inputs.ts';
import { EVAL_CONTEXTS, EVAL_ENGINES, EVAL_PROMPTS } from '../eval/eval-prompt.ts';
import type { EvalContext, EvalEngine, EvalPrompt } from '../eval/eval-summary.ts';
import { sqliteEvalInputs } from '../eval/sqlite-eval-inputs.ts';
import { endpointSource, fileSource, goldSource, type PredictionSource } from '../eval/prediction-source.ts';
import { runEval } from '../eval/run-eval.ts';
import { UNTRUSTED_PGLITE_MEMORY_MB } from '../execute/untrusted-query.ts';
import { writeEvalReport } from '../eval/report/eval-report.ts';
import { writeCompareReport } from '../eval/report/compare-report.ts';
import { EXIT, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';

const FLAGS = {
  dir: {
    type: 'string',
    value: 'DIR',
    help: 'a directory equisql generate and export wrote (its data/, schemas/, groups/, build.json and edge/build.json); required unless --compare',
  },
  split: { type: 'string', value: 'S', help: 'the split scored (default test)' },
  variants: { type: 'string', value: 'V,V,…', help: 'the variants scored (default every variant of the build)' },
  model: {
    type: 'string',
    value: 'M',
    help: "the model asked through an OpenAI-compatible endpoint (--base-url, the config's llm.baseURL, else OPENAI_BASE_URL; OPENAI_API_KEY), or gold: the gold SQL itself (scores 100%, a self-check)",
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    help: "the endpoint, such as http://127.0.0.1:8000/v1 (default: the config's llm.baseURL, else OPENAI_BASE_URL)",
  },
  predictions: {
    type: 'string',
    value: 'FILE.jsonl',
    help: 'SQL written elsewhere instead of a model: {"id", "sql"} a line, ids of the export\'s rows (a row without a line is scored missing)',
  },
  context: {
    type: 'string',
    value: 'ddl|ddl+er',
    help: "the prompt's context: the variant's DDL (default), or also the E/R model and the variant's shredding choices in words",
  },
  engine: {
    type: 'string',
    value: 'postgres|sqlite',
    help: "the engine the SQL runs on: the build's PostgreSQL schemas (default), or its SQLite files, DIR/sqlite/<variant>.sqlite and DIR/edge/sqlite/<variant>.sqlite (equisql build --engines postgres,sqlite); the prompt then shows the SQLite schema and asks for SQLite's SQL",
  },
  prompt: {
    type: 'string',
    value: 'paper|training',
    help: "the prompt asked: the first paper's (default), or the export's fine-tuning prompt (the system text, schema form and question wording of finetune/), for a model tuned on those files",
  },
  concurrency: {
    type: 'string',
    value: 'K',
    help: 'predictions asked at once, and server connections (default 4; PGlite has one)',
  },
  budget: {
    type: 'string',
    value: 'TOKENS',
    help: 'tokens after which the endpoint is asked nothing more (the run stops cleanly; --resume continues)',
  },
  timeout: { type: 'string', value: 'S', help: 'seconds a prediction may run on each instance (default 30)' },
  db: {
    type: 'string',
    value: 'URL',
    help: 'postgres://… or pglite:DIR (default DATABASE_URL for a server build, else the PGlite that build.json names)',
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: 'the datasets.config.ts whose llm section (model, baseURL, prices) applies; the cost goes to EVALDIR/run.json',
  },
  resume: {
    type: 'boolean',
    help: 'keep the complete lines an earlier (killed) run into EVALDIR wrote and continue after them',
  },
  out: {
    type: 'string',
    value: 'EVALDIR',
    required: true,
    help: 'where predictions.jsonl, summary.json, run.json, the heatmaps and report.html go; with --compare, the page FILE',
  },
  compare: {
    type: 'boolean',
    help: 'write one page comparing the finished evaluations EVALDIR … (the operands) to --out FILE, and score nothing',
  },
} as const satisfies FlagTable;

const DETAILS = `Scores SQL for every (question, variant) row of a split. Each row's prompt is the first
paper's (docs/eval.md) with the variant's DDL, or with --prompt training the export's
fine-tuning prompt (finetune/'s system text, schema form and question wording); its SQL (from the model, the predictions file,
or the gold) is untrusted text and runs only through the guarded executor, on the variant's
main instance and, when it gave rows there, its edge-case instance. Its answer is normalized
by equisql's rules (array values as sets, order only where the group is ordered, duplicates
counted) and is correct only if it equals the gold's on both.
With --engine sqlite the same rows run on the build's SQLite files through the SQLite guard
(docs/safe-queries.md); the prompt shows each variant's SQLite schema and asks for SQLite's
SQL, and the gold is the group's SQLite SQL run on the same files.

Writes EVALDIR/predictions.jsonl (one line per row, in the export's order: id, prompt hash,
SQL, outcome, result hashes, correct on main and edge), EVALDIR/summary.json (execution
accuracy per variant, difficulty and style; robust accuracy; error rates by kind; the
paper's PSS matrix and QAS/QDS/QMS per question; SQLStructEval's structural consistency) and
EVALDIR/run.json (the source, tokens, cost). predictions.jsonl and summary.json depend only
on the SQL scored: a predictions file with a model's SQL gives the bytes the model's run
gave. Replies are cached in EVALDIR/.llm-cache/, so --resume after a kill asks nothing twice
and gives the bytes of an uninterrupted run. At the end, EVALDIR/report.html (one page, no
network) and an SVG heatmap of pairwise agreement per dataset are written from those files.

equisql eval --compare EVALDIR_1 EVALDIR_2 … --out FILE puts several finished evaluations
(models) on one page.`;

/** A whole number of a flag within bounds, or the default. */
function whole(flag: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[0-9]+$/u.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max)
    throw new ConfigError(`--${flag}: expected a whole number from 1 to ${max}, got "${value.slice(0, 40)}"`);
  return n;
}

export const command: Command = {
  name: 'eval',
  summary: 'score a model (an endpoint, a predictions file, or the gold) on every variant of a split',
  flags: FLAGS,
  operands: '[EVALDIR …]',
  details: DETAILS,
  async run(args, io) {
    const { values: flags, positionals } = parseTable('eval', args, FLAGS, { positionals: true });
    const out = resolve(process.cwd(), required('eval', 'out', flags.out));
    if (flags.compare) {
      if (positionals.length === 0)
        throw new ConfigError('eval --compare: name the evaluation directories to compare (EVALDIR …)');
      const other = (['dir', 'model', 'predictions', 'resume'] as const).find((f) => flags[f] !== undefined);
      if (other) throw new ConfigError(`eval --compare: --${other} does not go with --compare (it scores nothing)`);
      await writeCompareReport(
        positionals.map((p) => resolve(process.cwd(), p)),
        out,
      );
      io.err(`eval: ${positionals.length} evaluations compared in ${out}`);
      return EXIT.ok;
    }
    if (positionals.length > 0)
      throw new ConfigError(
        `eval: unexpected argument "${positionals[0]?.slice(0, 60)}" (directories are operands of --compare only)`,
      );
    const dir = resolve(process.cwd(), required('eval', 'dir', flags.dir));
    const context = (flags.context ?? 'ddl') as EvalContext;
    if (!EVAL_CONTEXTS.includes(context))
      throw new ConfigError(`--context: expected ${EVAL_CONTEXTS.join(' or ')}, got "${flags.context}"`);
    const prompt = (flags.prompt ?? 'paper') as EvalPrompt;
    if (!EVAL_PROMPTS.includes(prompt))
      throw new ConfigError(`--prompt: expected ${EVAL_PROMPTS.join(' or ')}, got "${flags.prompt?.slice(0, 40)}"`);
    if (prompt === 'training' && context !== 'ddl')
      throw new ConfigError(
        `--prompt training: the fine-tuning prompt shows the schema only; it does not go with --context ${context}`,
      );
    const engine = (flags.engine ?? 'postgres') as EvalEngine;
    if (!EVAL_ENGINES.includes(engine))
      throw new ConfigError(`--engine: expected ${EVAL_ENGINES.join(' or ')}, got "${flags.engine?.slice(0, 40)}"`);
    if (engine === 'sqlite' && prompt === 'training')
      throw new ConfigError(
        '--prompt training: the fine-tuning files teach PostgreSQL; it does not go with --engine sqlite',
      );
    if (engine === 'sqlite' && flags.db !== undefined)
      throw new ConfigError("--db: not with --engine sqlite (the SQL runs on the build's SQLite files)");
    const concurrency = whole('concurrency', flags.concurrency, 4, 256);
    const budget = flags.budget === undefined ? undefined : whole('budget', flags.budget, 1, Number.MAX_SAFE_INTEGER);
    const seconds = flags.timeout === undefined ? 30 : Number(flags.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400)
      throw new ConfigError(`--timeout: expected seconds above 0 and at most 86400, got "${flags.timeout}"`);
    const sources = [
      flags.model !== undefined && flags.model !== 'gold' ? 'model' : undefined,
      flags.model === 'gold' ? 'gold' : undefined,
      flags.predictions !== undefined ? 'predictions' : undefined,
    ].filter(Boolean);
    if (sources.length !== 1)
      throw new ConfigError('eval: give exactly one of --model M, --model gold and --predictions FILE.jsonl');
    if (flags['base-url'] !== undefined && (flags.model === undefined || flags.model === 'gold'))
      throw new ConfigError('--base-url: only with --model M (an endpoint)');
    if (budget !== undefined && (flags.model === undefined || flags.model === 'gold'))
      throw new ConfigError('--budget: only with --model M (an endpoint)');
    const variants =
      flags.variants === undefined
        ? undefined
        : flags.variants
            .split(',')
            .map((v) => v.trim())
            .filter((v) => v !== '');
    if (variants && variants.length === 0) throw new ConfigError('--variants: no variant named');

    refuseIfLocked(dir);
    const read = readEvalInputs(dir, flags.split ?? 'test', variants, prompt);
    // On SQLite the files are checked here, before any model is asked anything.
    const onSqlite = engine === 'sqlite' ? sqliteEvalInputs(read) : undefined;
    const inputs = onSqlite?.inputs ?? read;
    const target = onSqlite
      ? undefined
      : targetOf(
          dir,
          inputs.manifest,
          flags.db ?? (inputs.manifest.database.kind === 'postgres' ? io.env['DATABASE_URL'] : undefined),
        );

    let client: LlmClient | undefined;
    let source: PredictionSource;
    let price: { input: number; output: number } | undefined;
    if (flags.predictions !== undefined) {
      const path = resolve(process.cwd(), flags.predictions);
      source = fileSource(path, basename(path).replace(/\.jsonl$/u, ''));
    } else if (flags.model === 'gold') {
      source = goldSource((row) => onSqlite?.sqliteSql(row) ?? row.sql);
    } else {
      const model = flags.model as string;
      if (!/^\S{1,200}$/u.test(model))
        throw new ConfigError(`--model: expected a model name without spaces, got "${model.slice(0, 40)}"`);
      const llmConfig =
        flags.config !== undefined ? (await loadConfig(flags.config, process.cwd())).config.llm : undefined;
      const resolved = resolveLlmEndpoint(llmConfig, model, io.env['OPENAI_BASE_URL']);
      const baseURL = flags['base-url'] ?? resolved.baseURL;
      if (!baseURL)
        throw new ConfigError('--model: needs an endpoint: --base-url, llm.baseURL in the config, or OPENAI_BASE_URL');
      try {
        if (!['http:', 'https:'].includes(new URL(baseURL).protocol)) throw new Error('not http');
      } catch {
        throw new ConfigError(
          `--base-url: expected an http(s) URL such as http://127.0.0.1:8000/v1, got "${baseURL.slice(0, 80)}"`,
        );
      }
      price = llmConfig?.prices ? ownValue(llmConfig.prices, model) : undefined;
      // The files and names are checked; the endpoint is looked at once before any request, connection or file.
      await probeEndpoint(baseURL, '--model');
      client = createLlmClient({
        baseURL,
        apiKey: io.env['OPENAI_API_KEY'] ?? 'unused',
        model,
        cacheDir: join(out, '.llm-cache'),
        rng: createRng(`eval/${model}`),
      });
      source = endpointSource(client, model, baseURL, budget);
    }

    const connections: Database[] = [];
    // One run at a time writes an evaluation: two would write every line twice.
    const release = lockDir(out, 'eval');
    try {
      // The predictions are untrusted: PGlite's memory is bounded for them.
      const bounded = target?.kind === 'pglite' ? { ...target, maxMemoryMb: UNTRUSTED_PGLITE_MEMORY_MB } : target;
      if (bounded)
        for (let i = 0; i < (bounded.kind === 'postgres' ? concurrency : 1); i++)
          connections.push(await openDatabase(bounded));
      const result = await runEval({
        inputs,
        source,
        connections,
        context,
        prompt,
        engine,
        ...(onSqlite ? { sqliteSql: onSqlite.sqliteSql } : {}),
        concurrency,
        timeoutMs: Math.ceil(seconds * 1000),
        out,
        resume: flags.resume ?? false,
        progress: io.err,
        ...(client
          ? {
              usage: () => {
                const u = (client as LlmClient).usage;
                return {
                  tokens: { prompt: u.prompt_tokens, completion: u.completion_tokens },
                  cost_usd: estimateCost(price, u.prompt_tokens, u.completion_tokens),
                  calls: u.requests,
                  cache_hits: u.cache_hits,
                };
              },
            }
          : {}),
      });
      const s = result.summary;
      if (s) {
        await writeEvalReport(out);
        const pct = (r: number) => `${(100 * r).toFixed(1)}%`;
        io.err(
          `eval: ${result.rows} predictions of ${s.robust.total} questions on ${inputs.variants.length} variants: EX ${pct(s.ex.rate)}, robust ${pct(s.robust.rate)}, invalid ${pct(s.errors.invalid_rate)}; ${out}`,
        );
      }
    } finally {
      for (const c of connections) await c.close();
      release();
    }
    return EXIT.ok;
  },
};
