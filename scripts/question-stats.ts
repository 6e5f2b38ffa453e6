/**
 * How the natural questions compare with real users' questions: length in characters and
 * words (median, 90th percentile), the share over 200 characters, and every machine phrase
 * (the reviewers' list, generator/questions/natural/machine-phrases.ts) found in question
 * text, evidence excluded; per style, the share of quoted values found verbatim in the
 * group's SQL; the ambiguity rejections of the run by choice. Natural questions are written afresh from the groups of a
 * generated directory per domain (paraphrases 0–2), beside Spider train's and BIRD
 * mini-dev's questions (read from ../shared/corpora/).
 *
 *   npm run question-stats                          groups from output/question-stats/<domain> (generated there first when absent: 1,000 a domain, DATABASE_URL or PGlite)
 *   npm run question-stats -- DIR …                 the groups of these generate directories
 *   npm run question-stats -- --show 50             also print 50 natural questions with their evidence, shuffled with 50 real ones
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { parseDomainJson } from '../generator/er-model/domain-json.ts';
import { createRng } from '../generator/common/rng.ts';
import { writeNaturalQuestion } from '../generator/questions/natural/natural-writer.ts';
import { MACHINE_PHRASES } from '../generator/questions/natural/machine-phrases.ts';
import type { GroupRecord } from '../generator/records/group-record.ts';
import { writeTemplateQuestions } from '../generator/questions/template-writer.ts';
import { quotedNotInSql, quotedValues } from '../generator/questions/quoted-labels.ts';
import { READING_CHOICES } from '../generator/questions/readings.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CORPORA = resolve(ROOT, '..', 'shared', 'corpora');
const args = process.argv.slice(2);
const showAt = args.indexOf('--show');
const show = showAt >= 0 ? Number(args[showAt + 1]) : 0;
const dirs = args.filter((a, i) => !a.startsWith('--') && (showAt < 0 || i !== showAt + 1));

function groupsOf(dir: string): { dataset: string; groups: GroupRecord[]; er: string } {
  const file = readdirSync(join(dir, 'groups')).find((f) => f.endsWith('.jsonl'));
  if (!file) throw new Error(`${dir}/groups holds no .jsonl file`);
  const groups = readFileSync(join(dir, 'groups', file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as GroupRecord);
  return { dataset: file.slice(0, -'.jsonl'.length), groups, er: join(dir, 'er.json') };
}

const sources =
  dirs.length > 0
    ? dirs.map((d) => resolve(d))
    : Object.keys(BUILT_IN_DOMAINS).map((domain) => {
        const dir = join(ROOT, 'output', 'question-stats', domain);
        if (!existsSync(join(dir, 'groups'))) {
          process.stderr.write(`question-stats: generating 1,000 ${domain} groups into ${dir}\n`);
          const r = spawnSync(
            process.execPath,
            [
              join(ROOT, 'bin', 'equisql.js'),
              'generate',
              '--dataset',
              domain,
              '--groups',
              '1000',
              '--out',
              dir,
              '--quiet',
            ],
            { stdio: 'inherit' },
          );
          if (r.status !== 0) throw new Error(`question-stats: generate failed for ${domain}`);
        }
        return dir;
      });

function stats(texts: readonly string[]) {
  const chars = texts.map((t) => t.length).sort((a, b) => a - b);
  const words = texts.map((t) => t.split(/\s+/u).filter(Boolean).length).sort((a, b) => a - b);
  const q = (xs: number[], f: number) => xs[Math.min(xs.length - 1, Math.ceil(f * xs.length) - 1)] as number;
  const median = (xs: number[]) =>
    xs.length % 2
      ? (xs[(xs.length - 1) / 2] as number)
      : ((xs[xs.length / 2 - 1] as number) + (xs[xs.length / 2] as number)) / 2;
  return {
    n: texts.length,
    cMed: median(chars),
    cP90: q(chars, 0.9),
    wMed: median(words),
    wP90: q(words, 0.9),
    over200: chars.filter((c) => c > 200).length / chars.length,
  };
}

function corpus(path: string): string[] {
  if (!existsSync(path))
    throw new Error(`question-stats: ${path} is missing (the corpora live in ../shared/corpora beside the checkout)`);
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { question: string }).question);
}

const rows: { label: string; texts: string[] }[] = [];
// Per style: quoted values and how many the group's SQL holds verbatim; the precise style's lengths.
const STYLES = ['natural', 'precise', 'imperative', 'conversational', 'concise', 'implicit'] as const;
const quoted = new Map<string, { all: number; found: number; example?: string }>(
  STYLES.map((st) => [st, { all: 0, found: 0 }]),
);
const precise: string[] = [];
const ambiguous = new Map<string, number>(READING_CHOICES.map((c) => [c, 0]));
let candidates = 0;
const natural: { question: string; evidence: string }[] = [];
for (const dir of sources) {
  const { dataset, groups, er } = groupsOf(dir);
  const index = existsSync(er)
    ? indexDomain(parseDomainJson(readFileSync(er, 'utf8'), er))
    : indexDomain(BUILT_IN_DOMAINS[dataset]!);
  const texts: string[] = [];
  for (const g of groups) {
    for (let p = 0; p < 3; p++) {
      const w = writeNaturalQuestion(index, g.query, p, g.group_id);
      texts.push(w.question);
      natural.push(w);
    }
  }
  rows.push({ label: `natural, ${dataset} (${groups.length} groups × 3)`, texts });
  for (const g of groups) {
    const sqls = Object.values(g.variants).map((v) => v.sql);
    const written = writeTemplateQuestions(
      index,
      g.query,
      STYLES.map((style) => ({ style, paraphrase: 0 })),
      g.group_id,
    );
    written.forEach((w, i) => {
      const q = quoted.get(STYLES[i] as string)!;
      const missing = quotedNotInSql(w.question, w.evidence, sqls);
      q.all += quotedValues(w.question).length + quotedValues(w.evidence).length;
      q.found += quotedValues(w.question).length + quotedValues(w.evidence).length - missing.length;
      if (missing.length > 0) q.example ??= `"${missing[0]}" in: ${w.question}`;
      if (STYLES[i] === 'precise') precise.push(w.question);
    });
  }
  const rejections = join(dir, 'rejections.jsonl');
  if (existsSync(rejections)) {
    for (const line of readFileSync(rejections, 'utf8').split('\n')) {
      const m = /"reason":"ambiguous:([a-z-]+)"/u.exec(line);
      if (m) ambiguous.set(m[1] as string, (ambiguous.get(m[1] as string) ?? 0) + 1);
    }
  }
  const manifest = join(dir, 'manifest.json');
  if (existsSync(manifest))
    candidates += Number(/"candidates":\s*(\d+)/u.exec(readFileSync(manifest, 'utf8'))?.[1] ?? 0);
}
rows.push({ label: `natural, all`, texts: rows.flatMap((r) => r.texts) });
rows.push({ label: `precise, all (paraphrase 0)`, texts: precise });
const bird = corpus(join(CORPORA, 'bird_minidev', 'minidev_postgresql.jsonl'));
const spider = corpus(join(CORPORA, 'spider', 'spider_train.jsonl'));
rows.push({ label: 'BIRD mini-dev', texts: bird }, { label: 'Spider train', texts: spider });

const out: string[] = [];
out.push('| questions | n | characters, median | p90 | words, median | p90 | over 200 characters | machine phrases |');
out.push('|---|---:|---:|---:|---:|---:|---:|---:|');
const hits = new Map<string, string[]>();
for (const r of rows) {
  const s = stats(r.texts);
  let found = 0;
  for (const t of r.texts)
    for (const re of MACHINE_PHRASES)
      if (re.test(t)) {
        found++;
        if (r.label.startsWith('natural,') && r.label !== 'natural, all')
          hits.set(re.source, [...(hits.get(re.source) ?? []), t]);
      }
  out.push(
    `| ${r.label} | ${s.n} | ${s.cMed} | ${s.cP90} | ${s.wMed} | ${s.wP90} | ${(100 * s.over200).toFixed(1)}% | ${found} |`,
  );
}
const all = stats(rows.find((r) => r.label === 'natural, all')!.texts);
const b = stats(bird);
out.push(
  '',
  `natural median / BIRD median: ${(all.cMed / b.cMed).toFixed(2)} (target ≤ 1.3); natural p90 / BIRD p90: ${(all.cP90 / b.cP90).toFixed(2)} (target ≤ 2)`,
);
out.push(hits.size === 0 ? 'machine phrases in natural questions: none' : `machine phrases in natural questions:`);
for (const [re, ts] of hits) out.push(`  ${re}: ${ts.length}, e.g. ${ts[0]}`);
out.push('', '| style | quoted values | found verbatim in the SQL |', '|---|---:|---:|');
for (const [style, q] of quoted)
  out.push(`| ${style} | ${q.all} | ${q.all === 0 ? '–' : `${((100 * q.found) / q.all).toFixed(1)}%`} |`);
for (const [style, q] of quoted) if (q.example) out.push(`  ${style}, not in the SQL: ${q.example}`);
out.push(
  '',
  `ambiguity rejections by choice (the natural question's other readings, run; ${candidates} candidates): ${[...ambiguous].map(([c, n]) => `${c} ${n}${candidates > 0 ? ` (${((100 * n) / candidates).toFixed(2)}%)` : ''}`).join(', ')}`,
);
if (show > 0) {
  const rng = createRng('question-stats/show');
  const mine = rng.sample(natural, show).map((w) => ({ text: w.question, evidence: w.evidence, source: 'equisql' }));
  const real = rng
    .sample(
      [...bird.map((t) => ({ text: t, source: 'BIRD' })), ...spider.map((t) => ({ text: t, source: 'Spider' }))],
      show,
    )
    .map((r) => ({ ...r, evidence: '' }));
  const mixed = rng.shuffle([...mine, ...real]);
  out.push(
    '',
    ...mixed.map((m, i) => `${i + 1}. ${m.text}`),
    '',
    'Key:',
    ...mixed.map((m, i) => `${i + 1}. ${m.source}${m.evidence ? ` — evidence: ${m.evidence}` : ''}`),
  );
}
process.stdout.write(`${out.join('\n')}\n`);
