import { describe, expect, it } from 'vitest';
import {
  displayFor,
  formatDuration,
  formatRate,
  progressDisplay,
  progressLine,
  renderBar,
} from '../../generator/cli/progress-bar.ts';
import type { ProgressCount } from '../../generator/common/progress-tick.ts';

const at = (done: number, total = 100, stage: ProgressCount['stage'] = 'groups'): ProgressCount => ({
  stage,
  done,
  total,
  unit: stage === 'export' ? 'rows' : 'groups',
});

describe('progress text', () => {
  it('writes durations as m:ss or h:mm:ss, and --:-- when unknown', () => {
    expect([0, 7, 59.6, 205, 3725, 36000].map(formatDuration)).toEqual([
      '0:00',
      '0:07',
      '1:00',
      '3:25',
      '1:02:05',
      '10:00:00',
    ]);
    expect(formatDuration(Number.NaN)).toBe('--:--');
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('--:--');
  });

  it('writes rates with precision that fits their size', () => {
    expect([0, 0.4213, 3.456, 12.34, 1250.4].map(formatRate)).toEqual(['0/s', '0.42/s', '3.46/s', '12.3/s', '1250/s']);
  });

  it('draws a bar exactly as wide as asked, filled by the share done, with count, rate and ETA', () => {
    const line = renderBar(at(25), 10, 60);
    expect(line).toBe('groups [#####................] 25/100 groups 2.50/s ETA 0:30');
    expect(line).toHaveLength(60);
    for (const width of [40, 61, 80, 120]) expect(renderBar(at(25), 10, width)).toHaveLength(width);
    // The filled cells follow the share.
    const cells = (l: string): [number, number] => {
      const inside = /\[([#.]*)\]/u.exec(l)?.[1] ?? '';
      return [inside.replace(/\./gu, '').length, inside.length];
    };
    const [filled, all] = cells(renderBar(at(50), 10, 100));
    expect(filled / all).toBeCloseTo(0.5, 1);
    const [full, width] = cells(renderBar(at(100), 40, 100));
    expect(full).toBe(width);
    expect(renderBar(at(100), 40, 100)).toMatch(/ 100\/100 groups 2\.50\/s ETA 0:00 *$/u);
  });

  it('leaves the bar out when the line is too narrow, and never exceeds the width', () => {
    const line = renderBar(at(25), 10, 30);
    expect(line).toHaveLength(30);
    expect(line).not.toContain('[');
  });

  it("counts the rate from what this run did: a resumed run's earlier groups do not inflate it", () => {
    // 20 groups were there before; 5 more in 10 s: 0.5/s, 75 left: 2:30.
    expect(renderBar(at(25), 10, 80, 20)).toMatch(/ 25\/100 groups 0\.50\/s ETA 2:30 *$/u);
    expect(progressLine(at(25), 10, 20)).toBe('groups: 25/100 groups (25%), 0.50/s, ETA 2:30');
  });

  it('gives an unknown ETA before any unit is done, and a plain end line with the time taken', () => {
    expect(progressLine(at(0), 3)).toBe('groups: 0/100 groups (0%), 0/s, ETA --:--');
    expect(progressLine(at(340, 340, 'export'), 2.4)).toBe('export: 340/340 rows in 0:02');
  });
});

describe('progress display', () => {
  it('off a terminal: one line every 10 s, and one at the end of each stage', () => {
    let t = 0;
    const out: string[] = [];
    const shown = progressDisplay({ tty: false, write: (s) => out.push(s), now: () => t });
    for (let done = 0; done <= 50; done++) {
      t = done * 0.5; // 2 groups a second
      shown.tick(at(done, 50));
    }
    t = 30;
    shown.tick(at(0, 10, 'questions'));
    t = 31;
    shown.tick(at(10, 10, 'questions'));
    expect(out).toEqual([
      'groups: 0/50 groups (0%), 0/s, ETA --:--\n',
      'groups: 20/50 groups (40%), 2.00/s, ETA 0:15\n',
      'groups: 40/50 groups (80%), 2.00/s, ETA 0:05\n',
      'groups: 50/50 groups in 0:25\n',
      'questions: 0/10 groups (0%), 0/s, ETA --:--\n',
      'questions: 10/10 groups in 0:01\n',
    ]);
  });

  it('on a terminal: one bar redrawn in place, messages written above it, a newline at the end', () => {
    let t = 0;
    const out: string[] = [];
    const shown = progressDisplay({ tty: true, write: (s) => out.push(s), now: () => t, columns: 61 });
    shown.tick(at(0, 4));
    t = 0.05; // too soon after the last drawing: not redrawn
    shown.tick(at(1, 4));
    t = 1;
    shown.tick(at(2, 4));
    shown.message('reusing the default build');
    t = 2;
    shown.tick(at(4, 4));
    shown.end();
    const bar = (done: number, elapsed: number): string => renderBar(at(done, 4), elapsed, 60);
    expect(out).toEqual([
      `\r${bar(0, 0)}`,
      `\r${bar(2, 1)}`,
      '\r\u001b[K',
      'reusing the default build\n',
      bar(2, 1),
      `\r${bar(4, 2)}`,
      '\n',
    ]);
    expect(bar(2, 1)).toContain('2/4 groups 2.00/s ETA 0:01');
  });

  it("without a stderr of its own (tests, --quiet) goes through the command's err as lines", () => {
    const lines: string[] = [];
    const shown = displayFor({ err: (s) => lines.push(s) });
    shown.tick(at(3, 3, 'export'));
    shown.message('done');
    expect(lines).toEqual([expect.stringMatching(/^export: 3\/3 rows in 0:00$/u), 'done']);
  });
});
