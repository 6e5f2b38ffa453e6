/**
 * Text placed inside HTML or SVG, as element content or a quoted attribute value. Everything
 * shown on the report pages (questions, model SQL, variant and model names) passes through
 * here: predicted SQL is a model's output and may hold `</pre><script>`.
 */

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

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

/**
 * A number as the report prints it: integers as they are, other values with `digits`
 * decimals, so the same summary always prints the same bytes.
 *
 * @example
 * formatNumber(12);        // '12'
 * formatNumber(0.8333, 3); // '0.833'
 */
export function formatNumber(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return '–';
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/**
 * A share in [0, 1] as a percentage with one decimal.
 *
 * @example
 * formatPercent(0.8333); // '83.3%'
 */
export function formatPercent(share: number): string {
  if (!Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(1)}%`;
}
