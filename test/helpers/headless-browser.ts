/**
 * A real headless browser for tests of pages equisql writes: Debian's `chromium`, driven
 * through puppeteer-core. `chromiumPath()` finds the binary (tests skip without one, and fail
 * under CI, whose `.ci/run` installs it).
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { describe, it } from 'vitest';

/** The chromium binary: `/usr/bin/chromium`, else the first `chromium` on PATH; undefined when none. */
export function chromiumPath(): string | undefined {
  const candidates = [
    '/usr/bin/chromium',
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter((d) => d !== '')
      .map((d) => join(d, 'chromium')),
  ];
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const IN_CI = Boolean(process.env['CI']);

/**
 * `describe` for tests that need a browser. Without a chromium binary they are skipped, the
 * block's name saying why and how to get one; under CI the block fails instead, so a CI run
 * cannot pass by skipping them.
 */
export function describeBrowser(name: string, body: (chromium: string) => void): void {
  const chromium = chromiumPath();
  if (chromium) {
    describe(name, () => body(chromium));
  } else if (IN_CI) {
    describe(name, () => {
      it('has a chromium binary', () => {
        throw new Error(
          'CI is set but there is no /usr/bin/chromium (nor chromium on PATH): the browser tests cannot run',
        );
      });
    });
  } else {
    // Skipped on purpose: a developer without chromium still runs every other test; CI (above) never gets here.
    describe.skip(`${name} (skipped: no chromium binary at /usr/bin/chromium or on PATH; apt-get install chromium to run)`, () =>
      body(''));
  }
}

/** Starts headless chromium (no sandbox: CI runs as root; no GPU). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  });
}

/** What a screenshot's pixels say: how many distinct colours, how much is not white, and named colours' pixel counts. */
export interface PixelStats {
  readonly width: number;
  readonly height: number;
  readonly distinctColours: number;
  /** Share of pixels that are not (near) white. */
  readonly inked: number;
  /** Pixels within 12 per channel of each colour asked for. */
  readonly near: Readonly<Record<string, number>>;
}

/**
 * Decodes a PNG in the browser (a blank page of its own: an image drawn on a canvas) and
 * counts its pixels' colours.
 */
export async function pixelStats(browser: Browser, png: Uint8Array, colours: readonly string[]): Promise<PixelStats> {
  const page: Page = await browser.newPage();
  try {
    const dataUrl = `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
    return await page.evaluate(
      async (url: string, wanted: readonly string[]) => {
        const image = new Image();
        image.src = url;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.naturalWidth;
        canvas.height = image.naturalHeight;
        const context = canvas.getContext('2d') as CanvasRenderingContext2D;
        context.drawImage(image, 0, 0);
        const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
        const targets = wanted.map((hex) => [
          parseInt(hex.slice(1, 3), 16),
          parseInt(hex.slice(3, 5), 16),
          parseInt(hex.slice(5, 7), 16),
        ]);
        const near: Record<string, number> = Object.fromEntries(wanted.map((w) => [w, 0]));
        const seen = new Set<number>();
        let inked = 0;
        for (let i = 0; i < data.length; i += 4) {
          const r = data[i] as number;
          const g = data[i + 1] as number;
          const b = data[i + 2] as number;
          seen.add((r << 16) | (g << 8) | b);
          if (r < 245 || g < 245 || b < 245) inked += 1;
          targets.forEach((t, k) => {
            if (
              Math.abs(r - (t[0] as number)) <= 12 &&
              Math.abs(g - (t[1] as number)) <= 12 &&
              Math.abs(b - (t[2] as number)) <= 12
            )
              near[wanted[k] as string] = (near[wanted[k] as string] ?? 0) + 1;
          });
        }
        const pixels = data.length / 4;
        return { width: canvas.width, height: canvas.height, distinctColours: seen.size, inked: inked / pixels, near };
      },
      dataUrl,
      colours,
    );
  } finally {
    await page.close();
  }
}
