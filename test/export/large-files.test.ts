import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeLinesAtomic } from '../../generator/common/atomic-write.ts';
import { readLines } from '../../generator/export/check-export.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

// Export files are written and checked a chunk at a time (a 1,000-group export's chat file
// is about 1 GB, more than one JavaScript string holds). Lines here are long and hold
// multi-byte characters, so chunk edges fall inside lines and inside characters.

const tmp = tempDir('large-files');
afterAll(() => tmp.remove());

const lines = Array.from({ length: 4_000 }, (_, i) => `{"i":${i},"text":"${'ü€𝄞 '.repeat(200 + (i % 37))}"}\n`);
const whole = lines.join('');
const sha = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

describe('export files in chunks', () => {
  it('writes every line, byte for byte, and returns the hash of the bytes written', () => {
    expect(Buffer.byteLength(whole)).toBeGreaterThan(5 << 20);
    const path = join(tmp.dir, 'rows.jsonl');
    const digest = writeLinesAtomic(path, lines);
    expect(readFileSync(path, 'utf8')).toBe(whole);
    expect(digest).toBe(sha(readFileSync(path)));
  });

  it('reads back every line across chunk edges, with the file hash and an unfinished last line', () => {
    const path = join(tmp.dir, 'unfinished.jsonl');
    writeFileSync(path, `${whole}{"last":"ü`);
    const seen: string[] = [];
    const r = readLines(path, true, (line) => seen.push(line));
    expect(seen).toEqual([...lines.map((l) => l.slice(0, -1)), '{"last":"ü']);
    expect(r).toEqual({ sha256: sha(readFileSync(path)), unfinished: true });
    const done = join(tmp.dir, 'done.jsonl');
    writeFileSync(done, whole);
    expect(readLines(done, true, () => {}).unfinished).toBe(false);
  });
});
