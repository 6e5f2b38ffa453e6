/**
 * Text placed inside HTML or SVG, as element content or a quoted attribute value. Everything
 * shown on the report pages (questions, model SQL, variant and model names) passes through
 * here: predicted SQL is a model's output and may hold `</pre><script>`.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** C0 controls other than tab and newline, and DEL: not allowed in XML text at all. */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/gu;

/**
 * `text` with the five markup characters written as entities and control characters (which
 * XML forbids, so an SVG holding one would not load) as visible `\uXXXX` escapes; safe in
 * element content and in single- or double-quoted attributes of both HTML and SVG.
 *
 * @example
 * escapeMarkup(`a < b && c = 'x'`); // 'a &lt; b &amp;&amp; c = &#39;x&#39;'
 */
export function escapeMarkup(text: string): string {
  return text
    .replace(/[&<>"']/gu, (c) => ENTITIES[c] as string)
    .replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Markup that is already safe: built by `html` or by a renderer of this folder. */
export interface Markup {
  readonly kind: 'markup';
  readonly html: string;
}

type Interpolated = string | number | Markup | readonly Markup[] | null | undefined;

function piece(value: Interpolated): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return escapeMarkup(String(value));
  if (typeof value === 'string') return escapeMarkup(value);
  if (Array.isArray(value)) return value.map((m: Markup) => m.html).join('');
  return (value as Markup).html;
}

/**
 * A template literal tag that escapes every interpolated string or number and passes
 * `Markup` through, so text from a summary or a model cannot end up unescaped by accident.
 *
 * @example
 * html`<td>${'<b>'}</td>`.html; // '<td>&lt;b&gt;</td>'
 */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolated[]): Markup {
  let out = strings[0] as string;
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] as string);
  });
  return { kind: 'markup', html: out };
}

/**
 * Markup produced by this folder's own renderers (an SVG from `renderHeatmapSvg`), marked as
 * safe. Never call it on text that came from a file or a model.
 */
export function trustedMarkup(text: string): Markup {
  return { kind: 'markup', html: text };
}
