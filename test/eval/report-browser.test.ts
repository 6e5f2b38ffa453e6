// @tier long
/**
 * The eval report, drawn by a real browser: a tiny social_media export (the paper's
 * questions) is scored twice by `equisql eval` — once from a predictions file with a model's
 * typical mistakes (inner joins where the class-table and concrete variants need LEFT ones,
 * SQL that smuggles markup, a DROP the guard refuses, a row left out), once as the gold —
 * then the `report.html` and heatmap the command wrote, and the page of `eval --compare`,
 * are opened in headless Chromium. The checks read what the browser drew against summary.json, predictions.jsonl
 * and the export; the screenshots are kept under test-artifacts/eval-report/.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agreementColour } from '../../generator/eval/report/agreement-colour.ts';
import { heatmapFileName } from '../../generator/eval/report/agreement-heatmaps.ts';
import { renderHeatmapSvg } from '../../generator/eval/report/heatmap-svg.ts';
import { PRESET_NAMES } from '../../generator/variants/variant-presets.ts';
import { writeEvalReport } from '../../generator/eval/report/eval-report.ts';
import { formatPercent } from '../../generator/eval/report/report-numbers.ts';
import type { EvalSummary, PredictionLine } from '../../generator/eval/eval-summary.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import type { GroupRecord } from '../../generator/records/group-record.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { describeBrowser, launchChromium, pixelStats } from '../helpers/headless-browser.ts';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';

const VARIANTS = ['full_sti', 'full_cti', 'full_concrete', 'hybrid_leaves_merged', 'kitchen_sink'];
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'eval-report');
/** Markup a model might write; the page must show it as text and run nothing. */
const SMUGGLED = `SELECT '</code></pre><script>document.title = "ran"</script><b>bold</b>' AS x`;

const lines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);

describeBrowser('eval report in headless Chromium', (chromium) => {
  const tmp = tempDir('eval-report');
  const exportDir = join(tmp.dir, 'social_media');
  const modelDir = join(tmp.dir, 'eval-model');
  const goldDir = join(tmp.dir, 'eval-gold');
  const comparePage = join(tmp.dir, 'compare.html');
  let split = '';
  let rows: ExportRecord[] = [];
  let browser: Browser;

  beforeAll(async () => {
    const suite = join(tmp.dir, 'suite.jsonl');
    writeFileSync(
      suite,
      PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') +
        '\n',
    );
    const generated = runCli(
      [
        'generate',
        '--dataset',
        'social_media',
        '--variants',
        VARIANTS.join(','),
        '--scale',
        'tiny',
        '--from-suite',
        suite,
        '--variants-per-question',
        'all',
        '--out',
        exportDir,
      ],
      { env: { DATABASE_URL: undefined } },
    );
    // Not every paper question has a non-trivial answer at tiny scale: generate says so (exit 1) and exports the rest.
    expect(generated.stderr).toMatch(/export: \d+ rows of \d+ groups/u);
    // The split with the most rows: the report has the most to show there.
    const manifest = JSON.parse(readFileSync(join(exportDir, 'manifest.json'), 'utf8')) as {
      export: { splits: Record<string, { rows: number }> };
    };
    split = Object.entries(manifest.export.splits).sort((a, b) => b[1].rows - a[1].rows)[0]?.[0] as string;
    rows = lines<ExportRecord>(join(exportDir, `data/${split}-00000-of-00001.jsonl`));

    const predictions = rows.flatMap((r, i) => {
      if (i === 5) return []; // no line: scored missing
      let sql = r.sql;
      if (['full_cti', 'full_concrete'].includes(r.variant)) sql = sql.replaceAll('LEFT JOIN', 'JOIN');
      if (i === 3) sql = SMUGGLED;
      if (i === 8) sql = 'DROP TABLE account';
      return [JSON.stringify({ id: r.id, sql })];
    });
    const predictionsFile = join(tmp.dir, 'mistaken-model.jsonl');
    writeFileSync(predictionsFile, predictions.join('\n') + '\n');
    for (const [source, out] of [
      [['--predictions', predictionsFile], modelDir],
      [['--model', 'gold'], goldDir],
    ] as const) {
      const run = runCli(['eval', '--dir', exportDir, '--split', split, ...source, '--out', out], {
        env: { DATABASE_URL: undefined },
      });
      expect(run.status, run.stderr).toBe(0);
    }
    const compared = runCli(['eval', '--compare', modelDir, goldDir, '--out', comparePage]);
    expect(compared.status, compared.stderr).toBe(0);
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium(chromium);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    tmp.remove();
  });

  const summaryOf = (dir: string): EvalSummary =>
    JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as EvalSummary;

  /** Opens a file, recording every request the page makes and every script error. */
  async function open(path: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
    return { page, requests, errors };
  }

  it('draws the tables, the heatmap and the worst questions of report.html, fetches nothing and runs no model-written markup', async () => {
    const summary = summaryOf(modelDir);
    const d = summary.datasets[0] as EvalSummary['datasets'][number];
    expect(summary.datasets.map((x) => x.dataset)).toEqual(['social_media']);
    expect(d.pss.variants).toEqual(VARIANTS);
    const reportFile = join(modelDir, 'report.html');
    const { page, requests, errors } = await open(reportFile);

    // Self-contained: the page itself is the only load; the smuggled script did not run.
    expect(requests).toEqual([pathToFileURL(reportFile).href]);
    expect(errors).toEqual([]);
    const dom = await page.evaluate(() => ({
      title: document.title,
      scripts: document.querySelectorAll('script').length,
      bold: document.querySelectorAll('b').length,
      pre: [...document.querySelectorAll('pre')].map((p) => p.textContent ?? ''),
      text: document.body.innerText,
    }));
    expect(dom.title).toBe('equisql eval: mistaken-model');
    expect(dom.scripts).toBe(0);
    expect(dom.pre).toContain(SMUGGLED);
    expect(dom.text).toContain('Execution accuracy per variant');
    expect(dom.text.length).toBeGreaterThan(3000);

    // The heatmap: one cell per pair of variants, each filled with its PSS value's colour and
    // showing the value, labels readable (inside the figure, not on top of each other).
    const max = Math.max(...d.pss.n);
    const heat = await page.evaluate(() => {
      const svgs = [...document.querySelectorAll('svg.heatmap')];
      const svg = svgs[0] as SVGSVGElement;
      const frame = svg.getBoundingClientRect();
      const box = (e: Element) => {
        const r = e.getBoundingClientRect();
        return { x: r.x - frame.x, y: r.y - frame.y, w: r.width, h: r.height, text: e.textContent ?? '' };
      };
      return {
        count: svgs.length,
        frame: { w: frame.width, h: frame.height },
        cells: [...svg.querySelectorAll('rect.cell')].map((c) => ({
          row: Number(c.getAttribute('data-row')),
          column: Number(c.getAttribute('data-column')),
          fill: c.getAttribute('fill'),
          ...box(c),
        })),
        values: [...svg.querySelectorAll('text.cell-value')].map((t) => t.textContent),
        rowLabels: [...svg.querySelectorAll('text.row-label')].map(box),
        columnLabels: [...svg.querySelectorAll('text.column-label')].map(box),
      };
    });
    expect(heat.count).toBe(1);
    expect(heat.cells).toHaveLength(VARIANTS.length ** 2);
    // A cell counts out of the questions asked on both variants (hybrid_leaves_merged is asked fewer).
    const both = (i: number, j: number) =>
      d.questions.filter(
        (q) => q.variants.includes(VARIANTS[i] as string) && q.variants.includes(VARIANTS[j] as string),
      ).length;
    for (const c of heat.cells) {
      const value = d.pss.matrix[c.row]?.[c.column] as number;
      expect(c.fill).toBe(agreementColour((value / both(c.row, c.column)) * max, max));
      expect(c.w).toBeGreaterThan(30);
      expect(c.h).toBeGreaterThan(30);
    }
    expect(heat.values).toEqual(d.pss.matrix.flat().map(String));
    // The mistakes show: the inner-join variants disagree with the others on some questions.
    expect(new Set(heat.cells.map((c) => c.fill)).size).toBeGreaterThanOrEqual(3);
    for (const labels of [heat.rowLabels, heat.columnLabels]) {
      expect(labels.map((l) => l.text)).toEqual(VARIANTS);
      for (const l of labels) {
        expect(l.w).toBeGreaterThan(20);
        expect(l.x).toBeGreaterThanOrEqual(0);
        expect(l.y).toBeGreaterThanOrEqual(0);
        expect(l.x + l.w).toBeLessThanOrEqual(heat.frame.w + 0.5);
        expect(l.y + l.h).toBeLessThanOrEqual(heat.frame.h + 0.5);
      }
    }
    heat.rowLabels
      .slice(1)
      .forEach((l, i) =>
        expect(l.y).toBeGreaterThanOrEqual(
          (heat.rowLabels[i] as { y: number; h: number }).y + (heat.rowLabels[i] as { h: number }).h - 1,
        ),
      );

    // The tables, figure by figure from summary.json.
    const tables = await page.evaluate(() =>
      [...document.querySelectorAll('table')].map((t) => ({
        caption: t.querySelector('caption')?.textContent ?? '',
        body: [...t.querySelectorAll('tbody tr')].map((r) =>
          [...r.querySelectorAll('td')].map((c) => (c as HTMLElement).innerText.trim()),
        ),
        visible: t.getBoundingClientRect().width > 0 && t.getBoundingClientRect().height > 0,
      })),
    );
    const table = (caption: string) => tables.find((t) => t.caption.startsWith(caption));
    for (const t of tables) expect(t.visible, t.caption).toBe(true);
    const perVariant = table('social_media: execution accuracy per variant');
    expect(perVariant?.body.map((r) => [r[0], r[1], r[2], r[3]])).toEqual(
      d.ex_by_variant.map((v) => [v.variant, formatPercent(v.rate), String(v.correct), String(v.total)]),
    );
    expect(table('social_media: execution accuracy per difficulty')?.body.map((r) => r[0])).toEqual(
      Object.keys(d.ex_by_difficulty),
    );
    expect(table('social_media: execution accuracy per style')?.body.map((r) => [r[0], r[1]])).toEqual(
      Object.entries(d.ex_by_style).map(([k, a]) => [k, formatPercent(a.rate)]),
    );
    const errorRows = table('social_media: invalid predictions by kind')?.body ?? [];
    expect(errorRows.map((r) => r[0])).toEqual(VARIANTS);
    expect(errorRows.reduce((s, r) => s + Number(r[4]), 0)).toBe(d.errors.by_kind.refused);
    expect(d.errors.by_kind.refused).toBeGreaterThanOrEqual(1);
    expect(d.errors.by_kind.missing).toBe(1);
    const overview = table('Execution accuracy (right on every instance)');
    expect(overview?.body[0]?.slice(0, 5)).toEqual([
      'mistaken-model',
      'social_media',
      String(d.ex.total),
      `${formatPercent(d.ex.rate)} (${d.ex.correct}/${d.ex.total})`,
      `${formatPercent(d.robust.rate)} (${d.robust.correct}/${d.robust.total})`,
    ]);
    expect(d.ex.rate).toBeLessThan(1);

    // Agreement by question: a row and a bar per question, the bar's parts as wide as QAS, QDS, QMS.
    const byQuestion = table('social_media: agreement by question');
    expect(byQuestion?.body.map((r) => r.slice(1, 5))).toEqual(
      d.questions.map((q) => [
        `${q.correct.filter(Boolean).length}/${q.variants.length}`,
        String(q.qas),
        String(q.qds),
        String(q.qms),
      ]),
    );
    const bars = await page.evaluate(() =>
      [...document.querySelectorAll('svg.pair-bar')].map((b) =>
        ['qas', 'qds', 'qms'].map(
          (k) => (b.querySelector(`rect.${k}`) as SVGRectElement).getBoundingClientRect().width,
        ),
      ),
    );
    expect(bars).toHaveLength(d.questions.length);
    bars.forEach((widths, i) => {
      const q = d.questions[i] as { qas: number; qds: number; qms: number; pairs: number };
      expect(q.qas + q.qds + q.qms).toBe(q.pairs);
      [q.qas, q.qds, q.qms].forEach((n, k) => expect(widths[k]).toBeCloseTo((160 * n) / q.pairs, 0));
    });
    expect(bars.some((w) => (w[1] as number) > 0)).toBe(true);

    // The worst questions: gold SQL from the export beside the model's, for the wrong variants.
    const predicted = new Map(
      lines<PredictionLine>(join(modelDir, 'predictions.jsonl')).map((p) => [`${p.question_id}/${p.variant}`, p]),
    );
    const gold = new Map(rows.map((r) => [r.id, r.sql]));
    const blocks = await page.evaluate(() =>
      [...document.querySelectorAll('.question')].map((q) => ({
        id: q.getAttribute('data-question') ?? '',
        pairs: [...q.querySelectorAll(':scope > table.side-by-side > tbody > tr')].map((r) => {
          const cells = [...r.querySelectorAll(':scope > td')];
          return {
            variant: cells[0]?.querySelector('code')?.textContent ?? '',
            gold: cells[1]?.querySelector('pre')?.textContent ?? null,
            predicted: cells[2]?.querySelector('pre')?.textContent ?? null,
          };
        }),
      })),
    );
    const wrong = d.questions.filter((q) => q.correct.includes(false));
    expect(blocks.length).toBe(Math.min(10, wrong.length));
    expect(blocks.length).toBeGreaterThan(0);
    for (const b of blocks) {
      const q = d.questions.find((x) => x.question_id === b.id);
      expect(b.pairs.map((p) => p.variant)).toEqual(q?.variants.filter((_, i) => !q.correct[i]));
      for (const p of b.pairs) {
        const line = predicted.get(`${b.id}/${p.variant}`);
        expect(p.gold).toBe(line ? gold.get(line.id) : null);
        expect(p.predicted).toBe(line?.sql ?? null);
      }
    }
    const worstWrong = (id: string) =>
      (d.questions.find((x) => x.question_id === id)?.correct ?? []).filter((c) => !c).length;
    blocks
      .slice(1)
      .forEach((b, i) => expect(worstWrong(b.id)).toBeLessThanOrEqual(worstWrong((blocks[i] as { id: string }).id)));

    // The pixels: a page with ink, many colours, and the heatmap's extreme colours in cells.
    const png = await page.screenshot({ fullPage: true, type: 'png' });
    writeFileSync(join(ARTIFACTS, 'report.png'), png);
    const fills = [...new Set(heat.cells.map((c) => c.fill as string))];
    const stats = await pixelStats(browser, png, fills);
    expect(stats.width).toBe(1280);
    expect(stats.height).toBeGreaterThan(2000);
    expect(stats.distinctColours).toBeGreaterThan(50);
    expect(stats.inked).toBeGreaterThan(0.03);
    // Every cell colour is on screen, a cell's worth of it or more.
    for (const f of fills) expect(stats.near[f], f).toBeGreaterThan(500);
    process.stderr.write(
      `eval report screenshot: ${join(ARTIFACTS, 'report.png')} (${stats.width}×${stats.height}, ${stats.distinctColours} colours)\n`,
    );
    await page.close();
  });

  it("shows a wrong answer's gold and predicted rows side by side: counts, the instance, the first differing row marked", async () => {
    const wrongLines = lines<PredictionLine>(join(modelDir, 'predictions.jsonl')).filter(
      (l) => l.answers !== undefined,
    );
    expect(wrongLines.length).toBeGreaterThan(0);
    // The gold's row count on its line is the group's, as generate verified it on that instance.
    const groups = new Map(
      lines<GroupRecord>(join(exportDir, 'groups/social_media.jsonl')).map((g) => [g.group_id, g]),
    );
    for (const l of wrongLines) {
      const a = l.answers as NonNullable<PredictionLine['answers']>;
      expect(l.correct).toBe(false);
      expect(a.instance).toBe(l.correct_main ? 'edge' : 'main');
      expect(a.gold.count).toBe(
        groups.get(l.group_id)?.verified_on.find((v) => v.profile === (a.instance === 'main' ? 'default' : 'edge'))
          ?.row_count,
      );
      if (a.first_difference !== null && a.first_difference < Math.min(a.gold.rows.length, a.predicted.rows.length))
        expect(a.gold.rows[a.first_difference]).not.toEqual(a.predicted.rows[a.first_difference]);
    }
    const { page, errors } = await open(join(modelDir, 'report.html'));
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll('.question')].flatMap((q) =>
        [...q.querySelectorAll(':scope > table.side-by-side > tbody > tr')].map((r) => {
          const answer = (which: string) => {
            const t = r.querySelector(`table.answer-rows[data-answer="${which}"]`);
            if (!t) return null;
            const box = t.getBoundingClientRect();
            return {
              caption: t.querySelector('caption')?.textContent ?? '',
              rows: [...t.querySelectorAll(':scope > tbody > tr')].map((tr) =>
                [...tr.querySelectorAll('td')].map((td) => td.textContent),
              ),
              marked: [...t.querySelectorAll(':scope > tbody > tr')].findIndex((tr) =>
                tr.classList.contains('first-difference'),
              ),
              markedColour: (() => {
                const m = t.querySelector('tr.first-difference td');
                return m ? getComputedStyle(m).backgroundColor : null;
              })(),
              left: box.left,
              visible: box.width > 0 && box.height > 0,
            };
          };
          return {
            question: q.getAttribute('data-question') ?? '',
            variant: r.querySelector('td code')?.textContent ?? '',
            verdict: r.querySelector('td')?.textContent ?? '',
            gold: answer('gold'),
            predicted: answer('predicted'),
          };
        }),
      ),
    );
    const byKey = new Map(wrongLines.map((l) => [`${l.question_id}/${l.variant}`, l]));
    const shown = drawn.filter((x) => byKey.has(`${x.question}/${x.variant}`));
    expect(shown.length).toBeGreaterThan(0);
    for (const x of shown) {
      const a = byKey.get(`${x.question}/${x.variant}`)?.answers as NonNullable<PredictionLine['answers']>;
      const cells = (rs: readonly (readonly (string | null)[])[]) =>
        rs.map((r) => r.map((v) => (v === null ? 'NULL' : v)));
      expect(x.gold?.visible && x.predicted?.visible).toBe(true);
      // Side by side: the predicted answer right of the gold's.
      expect(x.predicted?.left).toBeGreaterThan(x.gold?.left as number);
      expect(x.gold?.caption).toContain(`gold answer: ${a.gold.count} row`);
      expect(x.predicted?.caption).toContain(`predicted answer: ${a.predicted.count} row`);
      expect(x.gold?.rows).toEqual(cells(a.gold.rows));
      expect(x.predicted?.rows).toEqual(cells(a.predicted.rows));
      expect(x.verdict).toContain(a.instance === 'main' ? 'on the main instance' : 'right on the main one');
      expect(x.verdict).toContain(a.schema);
      const marked = a.first_difference !== null && a.first_difference < a.gold.rows.length ? a.first_difference : -1;
      expect(x.gold?.marked).toBe(marked);
      if (marked >= 0) expect(x.gold?.markedColour).toBe('rgb(253, 226, 225)');
    }
    // The inner joins lose rows: at least one answer has its first differing row on the page.
    expect(shown.some((x) => (x.gold?.marked ?? -1) >= 0)).toBe(true);
    // Invalid SQL shows the message it failed with.
    const invalid = lines<PredictionLine>(join(modelDir, 'predictions.jsonl')).filter(
      (l) => l.outcome === 'refused' || l.outcome === 'error',
    );
    for (const l of invalid) {
      const row = drawn.find((x) => x.question === l.question_id && x.variant === l.variant);
      if (row) expect(row.verdict).toContain((l.message as string).slice(0, 40));
    }
    expect(errors).toEqual([]);
    writeFileSync(join(ARTIFACTS, 'report-wrong-answers.png'), await page.screenshot({ fullPage: true, type: 'png' }));
    await page.close();
  });

  it('writes the bytes the eval command wrote when made again from its files', async () => {
    const before = readFileSync(join(modelDir, 'report.html'), 'utf8');
    const svgName = heatmapFileName('mistaken-model', 'social_media');
    const svgBefore = readFileSync(join(modelDir, svgName), 'utf8');
    await writeEvalReport(modelDir);
    expect(readFileSync(join(modelDir, 'report.html'), 'utf8')).toBe(before);
    expect(readFileSync(join(modelDir, svgName), 'utf8')).toBe(svgBefore);
  });

  it('shows the predicted SQL alone, and says why, when the export has moved; refuses a broken summary in one line naming it', async () => {
    const moved = join(tmp.dir, 'eval-moved');
    cpSync(modelDir, moved, { recursive: true });
    const run = JSON.parse(readFileSync(join(moved, 'run.json'), 'utf8')) as { dir: string };
    writeFileSync(join(moved, 'run.json'), JSON.stringify({ ...run, dir: join(tmp.dir, 'gone') }));
    await writeEvalReport(moved);
    const page = readFileSync(join(moved, 'report.html'), 'utf8');
    expect(page).toContain(
      `Gold SQL not shown: ${join(tmp.dir, 'gone', `data/${split}-00000-of-00001.jsonl`)} is not there.`,
    );
    // Each gold SQL block became the note; the predicted SQL blocks stay.
    const count = (text: string, part: string) => text.split(part).length - 1;
    const original = readFileSync(join(modelDir, 'report.html'), 'utf8');
    const notes = count(page, 'export not available');
    expect(notes).toBeGreaterThan(0);
    expect(count(original, 'export not available')).toBe(0);
    expect(count(page, '<pre><code>')).toBe(count(original, '<pre><code>') - notes);
    writeFileSync(join(moved, 'summary.json'), '{"version": 1, "datasets": [');
    await expect(writeEvalReport(moved)).rejects.toThrow(
      new RegExp(`^${join(moved, 'summary.json').replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}: not JSON: [^\n]+$`, 'u'),
    );
    const compared = runCli(['eval', '--compare', moved, '--out', join(tmp.dir, 'never.html')]);
    expect(compared.status).toBe(2);
    expect(compared.stderr.trim().split('\n')).toHaveLength(1);
    expect(compared.stderr).toContain(join(moved, 'summary.json'));
    expect(existsSync(join(tmp.dir, 'never.html'))).toBe(false);
  });

  it('opens the heatmap file on its own as an SVG image', async () => {
    const svgFile = join(modelDir, heatmapFileName('mistaken-model', 'social_media'));
    const { page, requests } = await open(svgFile);
    expect(requests).toEqual([pathToFileURL(svgFile).href]);
    const doc = await page.evaluate(() => ({
      root: document.documentElement.localName,
      namespace: document.documentElement.namespaceURI,
      parseErrors: document.getElementsByTagName('parsererror').length,
      cells: document.querySelectorAll('rect.cell').length,
    }));
    expect(doc).toEqual({
      root: 'svg',
      namespace: 'http://www.w3.org/2000/svg',
      parseErrors: 0,
      cells: VARIANTS.length ** 2,
    });
    const fills = await page.evaluate(() => [
      ...new Set([...document.querySelectorAll('rect.cell')].map((c) => c.getAttribute('fill') as string)),
    ]);
    const png = await page.screenshot({ type: 'png' });
    writeFileSync(join(ARTIFACTS, 'heatmap.png'), png);
    const stats = await pixelStats(browser, png, fills);
    expect(fills.length).toBeGreaterThanOrEqual(3);
    for (const f of fills) expect(stats.near[f], f).toBeGreaterThan(500);
    await page.close();
  });

  it('keeps the ten preset names readable on a heatmap: inside the figure, none over another, none over the grid', async () => {
    const n = PRESET_NAMES.length;
    const svg = renderHeatmapSvg({
      title: 'ten variants',
      labels: PRESET_NAMES,
      matrix: PRESET_NAMES.map((_, i) => PRESET_NAMES.map((_, j) => (i * 7 + j * 3) % 16)),
      max: 15,
    });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
    await page.setContent(`<!DOCTYPE html><html><body style="margin:0">${svg}</body></html>`);
    const view = await page.evaluate(() => {
      const root = document.querySelector('svg.heatmap') as SVGSVGElement;
      const box = (e: Element) => {
        const r = e.getBoundingClientRect();
        return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, text: e.textContent ?? '' };
      };
      const cells = [...root.querySelectorAll('rect.cell')].map(box);
      return {
        frame: box(root),
        grid: { left: Math.min(...cells.map((c) => c.left)), top: Math.min(...cells.map((c) => c.top)) },
        rows: [...root.querySelectorAll('text.row-label')].map(box),
        columns: [...root.querySelectorAll('text.column-label')].map(box),
      };
    });
    expect(view.rows.map((r) => r.text)).toEqual([...PRESET_NAMES]);
    expect(view.columns).toHaveLength(n);
    for (const l of [...view.rows, ...view.columns]) {
      expect(l.left).toBeGreaterThanOrEqual(view.frame.left);
      expect(l.right).toBeLessThanOrEqual(view.frame.right);
      expect(l.top).toBeGreaterThanOrEqual(view.frame.top);
    }
    for (const r of view.rows) expect(r.right).toBeLessThanOrEqual(view.grid.left);
    for (const c of view.columns) expect(c.bottom).toBeLessThanOrEqual(view.grid.top);
    view.rows
      .slice(1)
      .forEach((r, i) => expect(r.top).toBeGreaterThanOrEqual((view.rows[i] as { bottom: number }).bottom - 1));
    // Slanted labels overlap as boxes; their starts must still step along the columns.
    view.columns
      .slice(1)
      .forEach((c, i) => expect(c.left).toBeGreaterThan((view.columns[i] as { left: number }).left + 20));
    writeFileSync(join(ARTIFACTS, 'ten-variants.png'), await page.screenshot({ type: 'png' }));
    await page.close();
  });

  it('puts both models on the comparison page: a row and a column each, a heatmap each', async () => {
    const model = summaryOf(modelDir).datasets[0] as EvalSummary['datasets'][number];
    const gold = summaryOf(goldDir).datasets[0] as EvalSummary['datasets'][number];
    expect(gold.ex.rate).toBe(1);
    const { page, requests, errors } = await open(comparePage);
    expect(requests).toEqual([pathToFileURL(comparePage).href]);
    expect(errors).toEqual([]);
    const view = await page.evaluate(() => ({
      heatmaps: [...document.querySelectorAll('svg.heatmap')].map((s) => s.getAttribute('aria-label')),
      fills: [...document.querySelectorAll('svg.heatmap')].map((s) => [
        ...new Set([...s.querySelectorAll('rect.cell')].map((c) => c.getAttribute('fill'))),
      ]),
      tables: [...document.querySelectorAll('table')].map((t) => ({
        caption: t.querySelector('caption')?.textContent ?? '',
        head: [...t.querySelectorAll('thead th')].map((c) => c.textContent),
        body: [...t.querySelectorAll('tbody tr')].map((r) =>
          [...r.querySelectorAll('td')].map((c) => (c as HTMLElement).innerText.trim()),
        ),
      })),
    }));
    expect(view.heatmaps).toEqual([
      'mistaken-model on social_media: pairwise agreement (0..' + Math.max(...model.pss.n) + ')',
      'gold on social_media: pairwise agreement (0..' + Math.max(...gold.pss.n) + ')',
    ]);
    // The oracle agrees with itself everywhere: all yellow, whatever each variant was asked.
    expect(view.fills[1]).toEqual([agreementColour(1, 1)]);
    expect(view.fills[0]?.length).toBeGreaterThan(1);
    const perVariant = view.tables.find((t) => t.caption === 'social_media: execution accuracy per variant');
    expect(perVariant?.head).toEqual(['variant', 'mistaken-model', 'gold']);
    expect(perVariant?.body).toEqual(
      VARIANTS.map((v, i) => {
        const m = model.ex_by_variant[i] as { rate: number; correct: number; total: number };
        const g = gold.ex_by_variant[i] as { rate: number; correct: number; total: number };
        return [
          v,
          `${formatPercent(m.rate)} (${m.correct}/${m.total})`,
          `${formatPercent(g.rate)} (${g.correct}/${g.total})`,
        ];
      }),
    );
    const overview = view.tables.find((t) => t.caption.startsWith('Execution accuracy (right on every instance)'));
    expect(overview?.body.map((r) => r[0])).toEqual(['mistaken-model', 'gold']);
    const often = view.tables.find((t) => t.caption.startsWith('social_media: the questions most often wrong'));
    expect(often?.body.length).toBeGreaterThan(0);
    for (const r of often?.body ?? []) expect(r[2]).toMatch(/^(\d+)\/\1$/u);
    const png = await page.screenshot({ fullPage: true, type: 'png' });
    writeFileSync(join(ARTIFACTS, 'compare.png'), png);
    const stats = await pixelStats(browser, png, [agreementColour(1, 1)]);
    expect(stats.distinctColours).toBeGreaterThan(50);
    expect(stats.near[agreementColour(1, 1)]).toBeGreaterThan(VARIANTS.length ** 2 * 500);
    await page.close();
  });
});
