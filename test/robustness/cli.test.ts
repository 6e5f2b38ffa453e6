import { spawn } from 'node:child_process';
import { linkSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../generator/cli/command.ts';
import { command as grammar } from '../../generator/cli/grammar-command.ts';
import { command as variants } from '../../generator/cli/variants-command.ts';
import { parseFlags } from '../../generator/cli/flags.ts';
import { errorLine, main } from '../../generator/cli/main.ts';
import { ConfigError, GrammarError } from '../../generator/common/errors.ts';
import { escapeControl } from '../../generator/common/user-text.ts';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';

const tiny = resolve(REPO_ROOT, 'test/fixtures/grammar/tiny.pcfg');
const BIN = resolve(REPO_ROOT, 'bin/equisql.js');

function quietIo(): CliIo {
  return { out: () => {}, err: () => {}, readStdin: async () => '', env: {} };
}

function wideSelect(columns: number): string {
  return `SELECT ${Array.from({ length: columns }, (_, i) => `column_${i}`).join(', ')} FROM t`;
}

describe('exit codes and one-line errors', () => {
  it('reads a negative flag value as a value and refuses it by name, exit 2, even under --quiet', () => {
    const run = runCli(['grammar', 'sample', '--grammar', tiny, '-n', '-5', '--quiet']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('equisql grammar: -n must be a whole number of at least 1, got "-5"\n');
  });

  it('takes --seed -5 as a seed', () => {
    const run = runCli(['grammar', 'sample', '--grammar', tiny, '-n', '3', '--seed', '-5']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('a flag missing its value says how to write a value that starts with a dash, in one line', () => {
    const options = { out: { type: 'string' }, json: { type: 'boolean' } } as const;
    expect(() => parseFlags('estimate', ['--out', '--json'], options)).toThrow(
      new ConfigError(
        'estimate: --out needs a value, got the flag "--json" (write --out=--json for a value that starts with "-")',
      ),
    );
    expect(() => parseFlags('estimate', ['--out'], options)).toThrow(/^estimate: --out needs a value$/u);
    expect(() => parseFlags('estimate', ['--bogus'], options)).toThrow(
      /^estimate: unknown flag --bogus \(flags: --out, --json\)$/u,
    );
    expect(() => parseFlags('estimate', ['--json=1'], options)).toThrow(/^estimate: --json takes no value$/u);
    expect(parseFlags('estimate', ['--out', '-0.5'], options)).toEqual({ out: '-0.5' });
  });

  it('every EquisqlError is exit 2 (a bad grammar was 1), anything else is an internal error', () => {
    const run = runCli(['grammar', 'check', resolve(REPO_ROOT, 'test/fixtures/grammar/invalid/sum-not-one.pcfg')]);
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(errorLine('canon', new TypeError('x is undefined\nat …'))).toBe(
      'equisql canon: internal error: x is undefined',
    );
    expect(errorLine('suite', new ConfigError('suite: --dir is required'))).toBe('equisql suite: --dir is required');
    expect(errorLine('grammar', new GrammarError('g.pcfg:3: bad \u001b[2J'))).toBe(
      'equisql grammar: g.pcfg:3: bad \\u001b[2J',
    );
  });
});

describe('names the user gives are never inherited properties', () => {
  it('suite --suite __proto__ is an unknown suite', () => {
    const run = runCli(['suite', '--dir', 'nowhere', '--suite', '__proto__']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('equisql suite: --suite: unknown suite "__proto__" (known: paper; or give a FILE.jsonl)\n');
  });

  it('a command or dataset named after an Object property is unknown', async () => {
    expect(await main(['constructor'], quietIo())).toBe(2);
    expect(await main(['toString'], quietIo())).toBe(2);
    await expect(variants.run(['--dataset', '__proto__'], quietIo())).rejects.toThrow(
      /^--dataset: unknown dataset "__proto__"/u,
    );
    await expect(variants.run(['--dataset', 'constructor'], quietIo())).rejects.toThrow(
      /^--dataset: unknown dataset "constructor"/u,
    );
  });
});

describe('finding 6: grammar estimate never overwrites its corpus', () => {
  it('refuses --out naming the corpus through a relative path, a symbolic link or a hard link, before any work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equisql-estimate-'));
    const corpus = join(dir, 'corpus.sql');
    const text = 'SELECT a FROM t\nSELECT b FROM u WHERE c = 1\n';
    writeFileSync(corpus, text);
    symlinkSync(corpus, join(dir, 'link.sql'));
    linkSync(corpus, join(dir, 'hard.sql'));
    const run = runCli(['grammar', 'estimate', '--corpus', corpus, '--out', join(dir, 'link.sql')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^equisql grammar: estimate: --out .*link\.sql is the corpus .*corpus\.sql; writing the grammar there would destroy it\n$/u,
    );
    for (const out of [relative(process.cwd(), corpus), join(dir, 'hard.sql'), join(dir, '.', 'corpus.sql')]) {
      await expect(grammar.run(['estimate', '--corpus', corpus, '--out', out], quietIo())).rejects.toThrow(
        /is the corpus/u,
      );
    }
    expect(readFileSync(corpus, 'utf8')).toBe(text);
  });

  it('writes the grammar through a symbolic link to an old grammar, leaving no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equisql-estimate-'));
    const corpus = join(dir, 'corpus.sql');
    writeFileSync(corpus, 'SELECT a FROM t\n');
    writeFileSync(join(dir, 'old.pcfg'), 'old');
    symlinkSync(join(dir, 'old.pcfg'), join(dir, 'current.pcfg'));
    expect(await grammar.run(['estimate', '--corpus', corpus, '--out', join(dir, 'current.pcfg')], quietIo())).toBe(0);
    expect(readFileSync(join(dir, 'old.pcfg'), 'utf8')).toMatch(/^# equisql grammar/u);
    expect((await import('node:fs')).readdirSync(dir).sort()).toEqual(['corpus.sql', 'current.pcfg', 'old.pcfg']);
  });
});

describe("findings 12 and 20: a huge or hostile line is that line's problem", () => {
  const ansi = 'SELECT \u001b[2J\u001b]0;pwned\u0007 FROM';
  const lines = ['SELECT a FROM t', wideSelect(110_000), ansi, 'SELECT b FROM u WHERE c = 1'];

  it('canon prints an error for the 1.1 MB SELECT and goes on with the next lines', () => {
    const run = runCli(['canon'], { input: `${lines.join('\n')}\n` });
    expect(run.status, run.stderr).toBe(0);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(records.map((r) => Object.keys(r)[0])).toEqual(['canonical', 'error', 'error', 'canonical']);
    expect(records[1]?.['error']).toMatch(/^query too long: \d+ characters \(at most 100000\)$/u);
    expect(records[3]?.['canonical']).toBe('select b from u where c = 1');
  });

  it('estimate reports the huge line as skipped, and escapes control bytes from the corpus', () => {
    const dir = mkdtempSync(join(tmpdir(), 'equisql-estimate-'));
    const corpus = join(dir, 'corpus.sql');
    writeFileSync(corpus, `${lines.join('\n')}\n`);
    const run = runCli(['grammar', 'estimate', '--corpus', corpus, '--out', join(dir, 'g.pcfg')]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /^unparsed line 2: query too long: \d+ characters \(at most 100000\): SELECT column_0, .{0,200}… \(\d+ more characters\)$/mu,
    );
    expect(run.stderr).toMatch(/^unparsed line 3: .*SELECT \\u001b\[2J\\u001b\]0;pwned\\u0007 FROM$/mu);
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/u);
    expect(run.stderr).toMatch(/parsed 2 of 4/u);
  });

  it('escapeControl writes controls, DEL, C1 and bidi overrides as escapes and keeps other text', () => {
    expect(escapeControl('a\tb\u007f\u009b\u202eé€\\')).toBe('a\\tb\\u007f\\u009b\\u202eé€\\');
  });
});

describe('finding 11: grammar sample streams', () => {
  it('starts writing at once for -n 1000000000 and keeps memory flat', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'grammar', 'sample', '--grammar', tiny, '-n', '1000000000', '--no-dedupe'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const started = Date.now();
    let lines = 0;
    let firstAfter = -1;
    let rssKb = 0;
    await new Promise<void>((done, fail) => {
      child.on('error', fail);
      child.on('exit', () => done());
      child.stdout.on('data', (chunk: Buffer) => {
        if (firstAfter < 0) firstAfter = Date.now() - started;
        lines += chunk.toString('utf8').split('\n').length - 1;
        if (lines >= 200_000 && rssKb === 0) {
          rssKb = Number(/VmRSS:\s+(\d+)/u.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
          // A reader that stops (`| head`) ends the command instead of it drawing on forever.
          child.stdout.destroy();
        }
      });
    });
    expect(firstAfter).toBeGreaterThanOrEqual(0);
    expect(firstAfter).toBeLessThan(20_000);
    expect(lines).toBeGreaterThanOrEqual(200_000);
    expect(rssKb).toBeGreaterThan(0);
    expect(rssKb).toBeLessThan(400_000);
  }, 90_000);

  it('refuses a deduplicated run larger than deduplication can remember, at once', () => {
    const run = runCli(['grammar', 'sample', '--grammar', tiny, '-n', '1000000000']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'equisql grammar: sample: -n 1000000000 is above 1000000, the most distinct skeletons deduplication keeps track of; add --no-dedupe for more\n',
    );
  });
});
