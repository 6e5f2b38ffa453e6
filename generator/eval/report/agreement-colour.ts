/**
 * The heatmaps' colour scale: 0 is dark purple, the maximum is yellow, through blue and
 * green, as in the first paper's figures. The stops are viridis at every tenth, a scale
 * whose lightness rises evenly, so equal steps in agreement look like equal steps in colour
 * (also in grey print and to readers with red-green colour blindness). Between stops the
 * channels are mixed linearly; the stops are close enough that the mix stays even.
 */

const STOPS: readonly (readonly [number, number, number])[] = [
  [0x44, 0x01, 0x54],
  [0x48, 0x24, 0x75],
  [0x41, 0x44, 0x87],
  [0x35, 0x5f, 0x8d],
  [0x2a, 0x78, 0x8e],
  [0x21, 0x91, 0x8c],
  [0x22, 0xa8, 0x84],
  [0x44, 0xbf, 0x70],
  [0x7a, 0xd1, 0x51],
  [0xbd, 0xdf, 0x26],
  [0xfd, 0xe7, 0x25],
];

function hex(channels: readonly number[]): string {
  return `#${channels.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

function rgbAt(value: number, max: number): [number, number, number] {
  const t = max > 0 && Number.isFinite(value) ? Math.min(1, Math.max(0, value / max)) : 0;
  const at = t * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(at));
  const f = at - i;
  const a = STOPS[i] as readonly [number, number, number];
  const b = STOPS[i + 1] as readonly [number, number, number];
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

/**
 * The fill for `value` on a scale from 0 to `max`, as `#rrggbb`. Values outside the range
 * are clamped; a `max` of 0 (no questions) gives the colour of 0.
 *
 * @example
 * agreementColour(0, 15);  // '#440154' (purple)
 * agreementColour(15, 15); // '#fde725' (yellow)
 */
export function agreementColour(value: number, max: number): string {
  return hex(rgbAt(value, max));
}

/**
 * The text colour that reads on `agreementColour(value, max)`: white on the dark half of the
 * scale, black on the light half, chosen by the fill's relative luminance (WCAG), so every
 * cell's number has a contrast of at least 4.5:1, the WCAG AA figure for small text (a
 * near-black would fall short on the scale's middle teal).
 *
 * @example
 * labelColour(0, 15);  // '#ffffff'
 * labelColour(15, 15); // '#000000'
 */
export function labelColour(value: number, max: number): string {
  const lin = rgbAt(value, max).map((c) => {
    const s = Math.round(c) / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  // Contrast with white is 1.05/(L+0.05), with black (L+0.05)/0.05: equal at L ≈ 0.179 (4.58:1).
  return luminance > 0.179 ? '#000000' : '#ffffff';
}
