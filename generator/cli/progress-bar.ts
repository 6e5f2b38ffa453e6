/**
 * What the CLI shows of a stage's progress counts on stderr: on a terminal, one bar redrawn
 * in place with the count, the rate and the time left; elsewhere (a log file, CI, a pipe),
 * a plain line now and then and one at the end of each stage, so logs stay readable.
 * The drawing is a pure function of the count and the elapsed time, tested as such.
 */
import type { ProgressCount, ProgressTick } from '../common/progress-tick.ts';

/**
 * `0:07`, `3:25`, `1:02:09`; `--:--` when unknown (no rate yet).
 *
 * @example
 * formatDuration(3725); // '1:02:05'
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const two = (n: number): string => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/** Units a second, with sensible precision: `0.42/s`, `3.4/s`, `1250/s`. */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return '0/s';
  return perSecond >= 100
    ? `${Math.round(perSecond)}/s`
    : perSecond >= 10
      ? `${perSecond.toFixed(1)}/s`
      : `${perSecond.toFixed(2)}/s`;
}

/** The rate and the seconds left, from the units done in `elapsed` seconds (`base` were done before: a resumed run's). */
function pace(count: ProgressCount, elapsed: number, base: number): { rate: number; left: number } {
  const rate = elapsed > 0 ? (count.done - base) / elapsed : 0;
  const left = count.done >= count.total ? 0 : rate > 0 ? (count.total - count.done) / rate : Number.NaN;
  return { rate, left };
}

/**
 * One bar line exactly `width` characters wide (the bar shrinks to fit the text; below a
 * few cells it is left out):
 *
 * @example
 * renderBar({ stage: 'groups', done: 25, total: 100, unit: 'groups' }, 10, 60);
 * // 'groups [#####................] 25/100 groups 2.50/s ETA 0:30'
 */
export function renderBar(count: ProgressCount, elapsed: number, width: number, base = 0): string {
  const { rate, left } = pace(count, elapsed, base);
  const text = ` ${count.done}/${count.total} ${count.unit} ${formatRate(rate)} ETA ${formatDuration(left)}`;
  const label = `${count.stage} `;
  const cells = width - label.length - text.length - 2;
  const share = count.total > 0 ? Math.min(1, count.done / count.total) : 1;
  const bar = cells >= 5 ? `[${'#'.repeat(Math.round(share * cells)).padEnd(cells, '.')}]` : '';
  return `${label}${bar}${text}`.slice(0, width).padEnd(width);
}

/**
 * The plain line a non-terminal gets: `groups: 25/100 groups (25%), 2.50/s, ETA 0:30`; at the
 * end of a stage, `groups: 100/100 groups in 0:40`.
 */
export function progressLine(count: ProgressCount, elapsed: number, base = 0): string {
  const { rate, left } = pace(count, elapsed, base);
  if (count.done >= count.total)
    return `${count.stage}: ${count.done}/${count.total} ${count.unit} in ${formatDuration(elapsed)}`;
  const percent = count.total > 0 ? Math.floor((100 * count.done) / count.total) : 100;
  return `${count.stage}: ${count.done}/${count.total} ${count.unit} (${percent}%), ${formatRate(rate)}, ETA ${formatDuration(left)}`;
}

export interface ProgressDisplay {
  /** The callback library code reports counts to. */
  readonly tick: ProgressTick;
  /** Other progress messages: on a terminal they are written above the bar. */
  readonly message: (line: string) => void;
  /** Ends the bar's line (call once the command is done). */
  readonly end: () => void;
}

export interface DisplayOptions {
  /** A terminal: draw a bar in place. */
  readonly tty: boolean;
  /** Writes text to stderr as is (no newline added). */
  readonly write: (text: string) => void;
  /** Seconds since some fixed moment (injected, for tests). */
  readonly now?: () => number;
  /** Terminal width (default 80). */
  readonly columns?: number;
  /** Seconds between plain lines (default 10); a terminal's bar is redrawn at most every 0.1 s. */
  readonly every?: number;
}

/**
 * The CLI's display of progress counts and messages on stderr.
 *
 * @example
 * const shown = progressDisplay({ tty: process.stderr.isTTY, write: (t) => process.stderr.write(t) });
 * await generateGroups({ …, tick: shown.tick, progress: shown.message });
 * shown.end();
 */
export function progressDisplay(options: DisplayOptions): ProgressDisplay {
  const now = options.now ?? (() => performance.now() / 1000);
  const every = options.tty ? 0.1 : (options.every ?? 10);
  const width = Math.max(20, (options.columns ?? 80) - 1);
  // Per stage: when it started reporting and its count then, and when it was last shown.
  const started = new Map<string, { at: number; base: number }>();
  let shownAt = Number.NEGATIVE_INFINITY;
  let bar: string | undefined;
  const clear = (): void => {
    if (bar !== undefined) options.write('\r\u001b[K');
  };
  const tick: ProgressTick = (count) => {
    const t = now();
    if (!started.has(count.stage)) started.set(count.stage, { at: t, base: count.done });
    const { at, base } = started.get(count.stage) as { at: number; base: number };
    const elapsed = t - at;
    const finished = count.done >= count.total;
    if (!finished && t - shownAt < every) return;
    shownAt = t;
    if (options.tty) {
      bar = renderBar(count, elapsed, width, base);
      options.write(`\r${bar}`);
      if (finished) {
        options.write('\n');
        bar = undefined;
      }
    } else {
      options.write(`${progressLine(count, elapsed, base)}\n`);
    }
    if (finished) {
      started.delete(count.stage);
      shownAt = Number.NEGATIVE_INFINITY;
    }
  };
  const message = (line: string): void => {
    clear();
    options.write(line.endsWith('\n') ? line : `${line}\n`);
    if (bar !== undefined) options.write(bar);
  };
  const end = (): void => {
    if (bar !== undefined) options.write('\n');
    bar = undefined;
  };
  return { tick, message, end };
}

/**
 * The display a command uses: the bar or lines on stderr as `io.progress` says, else plain
 * lines through `io.err` (silent under --quiet).
 */
export function displayFor(io: {
  readonly err: (text: string) => void;
  readonly progress?: DisplayOptions;
}): ProgressDisplay {
  return progressDisplay(io.progress ?? { tty: false, write: (text) => io.err(text.replace(/\n$/u, '')) });
}
