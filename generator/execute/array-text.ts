/**
 * PostgreSQL's text form of a one-dimensional array (`{a,"b c",NULL}`), read only as far as
 * comparing answers needs: a set the answer shows as an array has no order, so its elements
 * are compared sorted.
 */

/**
 * The elements of an array's text form, each as PostgreSQL wrote it (quotes and escapes
 * kept), or undefined when the text is not an array's: no braces around it, a nested array,
 * or unbalanced quotes.
 *
 * @example arrayElements('{M,"X L",NULL}') // ['M', '"X L"', 'NULL']
 * @example arrayElements('{}')              // []
 */
export function arrayElements(text: string): string[] | undefined {
  if (text.length < 2 || text[0] !== '{' || text[text.length - 1] !== '}') return undefined;
  const body = text.slice(1, -1);
  if (body === '') return [];
  const out: string[] = [];
  let i = 0;
  while (i <= body.length) {
    let j = i;
    if (body[j] === '"') {
      for (j++; j < body.length && body[j] !== '"'; j++) if (body[j] === '\\') j++;
      if (j >= body.length) return undefined;
      j++;
    } else {
      while (j < body.length && body[j] !== ',') {
        if (body[j] === '{' || body[j] === '}' || body[j] === '"') return undefined;
        j++;
      }
    }
    if (j < body.length && body[j] !== ',') return undefined;
    out.push(body.slice(i, j));
    i = j + 1;
    if (j === body.length) break;
  }
  return out;
}

/**
 * An array's text form with its elements in one fixed order (by their text), so two
 * arrays holding the same set print the same; any other text is returned as it is.
 *
 * @example sortedArrayText('{XL,M,S}') // '{M,S,XL}'
 * @example sortedArrayText('plain')    // 'plain'
 */
export function sortedArrayText(text: string): string {
  const elements = arrayElements(text);
  if (!elements || elements.length < 2) return text;
  return `{${[...elements].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',')}}`;
}
