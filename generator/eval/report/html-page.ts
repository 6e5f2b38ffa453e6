/**
 * The report's HTML page: one self-contained document, its CSS inline, its figures inline
 * SVG, nothing fetched. A Content-Security-Policy forbids scripts and every network load, so
 * the page shows the same offline, from a mail attachment or a CI artifact, and a model's SQL
 * shown on it can do nothing even if an escape were missed.
 */
import { html, type Markup } from './markup-text.ts';

export interface TableColumn {
  readonly label: string;
  /** Right-aligned, tabular figures. */
  readonly numeric?: boolean;
}

export type TableCell = string | number | Markup;

export interface TableInput {
  readonly caption?: string;
  /** A class of this module's stylesheet (`side-by-side`: fixed layout, for SQL). */
  readonly className?: 'side-by-side';
  readonly columns: readonly TableColumn[];
  readonly rows: readonly (readonly TableCell[])[];
  /** Rows after the body, set apart (totals). */
  readonly footer?: readonly (readonly TableCell[])[];
}

export interface PageSection {
  /** The anchor (`#id`) the contents list links to. */
  readonly id: string;
  readonly heading: string;
  /** A sentence under the heading saying what the section shows. */
  readonly intro?: string;
  readonly body: Markup;
}

export interface PageInput {
  readonly title: string;
  /** Lines under the title (split, context, what was scored). */
  readonly facts?: readonly string[];
  readonly sections: readonly PageSection[];
}

const CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; color: #1b1b1f; background: #ffffff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 6px; padding-top: 8px; border-top: 2px solid #e4e4ea; }
h3 { font-size: 16px; margin: 24px 0 6px; }
p.facts { margin: 2px 0; color: #4a4a55; }
p.intro { margin: 0 0 12px; color: #4a4a55; max-width: 70em; }
nav ol { margin: 12px 0 0; padding-left: 20px; columns: 2; max-width: 48em; }
table { border-collapse: collapse; margin: 8px 0 16px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid #d6d6de; padding: 4px 10px; vertical-align: top; text-align: left; }
th { background: #f2f2f6; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tfoot td { font-weight: 600; background: #fafafc; }
tbody tr:nth-child(even) td { background: #fafafc; }
code, pre { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.tables { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
.figures { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.figures figure { margin: 0; }
.figures svg { max-width: 100%; height: auto; }
svg.pair-bar { display: block; margin-top: 3px; }
figcaption { color: #4a4a55; font-size: 13px; max-width: 60em; }
.question { margin: 20px 0 28px; padding: 12px 16px; border: 1px solid #d6d6de; border-radius: 6px; }
.question p { margin: 4px 0; }
.side-by-side { width: 100%; table-layout: fixed; }
.side-by-side td { background: #ffffff !important; }
.side-by-side th:first-child { width: 14em; }
.bad { color: #a1111b; font-weight: 600; }
.good { color: #176b2c; font-weight: 600; }
.muted { color: #6b6b76; }
table.answer-rows { margin-top: 8px; font-size: 12.5px; }
table.answer-rows td, table.answer-rows th { padding: 1px 6px; }
.side-by-side tr.first-difference td { background: #fde2e1 !important; }
`;

/**
 * A table: header row, body rows, optional footer rows; numeric columns right-aligned.
 * Strings and numbers are escaped; `Markup` cells are placed as they are.
 *
 * @example
 * renderTable({ columns: [{ label: 'variant' }, { label: 'EX', numeric: true }], rows: [['full_sti', '93.3%']] });
 */
export function renderTable(input: TableInput): Markup {
  const cellClass = (j: number): string => (input.columns[j]?.numeric ? ' class="num"' : '');
  const row = (cells: readonly TableCell[]): Markup =>
    html`<tr>${cells.map((c, j) => html`<td${trustedClass(cellClass(j))}>${c}</td>`)}</tr>\n`;
  return html`<table${trustedClass(input.className ? ` class="${input.className}"` : '')}>${input.caption === undefined ? null : html`<caption>${input.caption}</caption>`}
<thead><tr>${input.columns.map((c, j) => html`<th${trustedClass(cellClass(j))} scope="col">${c.label}</th>`)}</tr></thead>
<tbody>
${input.rows.map(row)}</tbody>${
    input.footer && input.footer.length > 0
      ? html`
<tfoot>
${input.footer.map(row)}</tfoot>`
      : null
  }
</table>
`;
}

/** A class attribute from this module's own constants. */
function trustedClass(attribute: string): Markup {
  return { kind: 'markup', html: attribute };
}

/**
 * The whole page as an HTML document: title, facts, a contents list, then each section.
 *
 * @example
 * renderHtmlPage({ title: 'equisql eval: gold', sections: [{ id: 'ex', heading: 'Execution accuracy', body: table }] });
 * // '<!DOCTYPE html>\n<html lang="en">…'
 */
export function renderHtmlPage(input: PageInput): string {
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title}</title>
<style>${{ kind: 'markup', html: CSS }}</style>
</head>
<body>
<header>
<h1>${input.title}</h1>
${(input.facts ?? []).map((f) => html`<p class="facts">${f}</p>\n`)}<nav><ol>
${input.sections.map((s) => html`<li><a href="#${s.id}">${s.heading}</a></li>\n`)}</ol></nav>
</header>
<main>
${input.sections.map(
  (s) => html`<section id="${s.id}">
<h2>${s.heading}</h2>
${s.intro === undefined ? null : html`<p class="intro">${s.intro}</p>\n`}${s.body}</section>
`,
)}</main>
</body>
</html>
`;
  return page.html;
}
