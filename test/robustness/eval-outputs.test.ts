/**
 * Finding 6 of the third hostile run, the parts that need no database: `eval --compare …
 * --out FILE` overwrote any file, its own inputs included, and a predictions file whose first
 * line began with a byte order mark was "not a JSON line".
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../generator/common/errors.ts';
import { fileSource } from '../../generator/eval/prediction-source.ts';
import { writeCompareReport } from '../../generator/eval/report/compare-report.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

const tmp = tempDir('eval-outputs');
afterAll(() => tmp.remove());

describe('eval --compare --out', () => {
  it('never writes over an evaluation it compares, nor over a file that is no page of ours', async () => {
    const a = join(tmp.dir, 'a');
    const b = join(tmp.dir, 'b');
    for (const d of [a, b]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'summary.json'), '{"kept": true}\n');
    }
    await expect(writeCompareReport([a, b], join(a, 'summary.json'))).rejects.toThrow(ConfigError);
    await expect(writeCompareReport([a, b], join(b, 'summary.json'))).rejects.toThrow(
      /is inside .*b, one of the evaluations compared/u,
    );
    const unrelated = join(tmp.dir, 'notes.txt');
    writeFileSync(unrelated, 'my notes\n');
    await expect(writeCompareReport([a, b], unrelated)).rejects.toThrow(/exists and is not a page equisql wrote/u);
    expect(readFileSync(unrelated, 'utf8')).toBe('my notes\n');
    expect(readFileSync(join(a, 'summary.json'), 'utf8')).toBe('{"kept": true}\n');
  });
});

describe('a predictions file', () => {
  it('may begin with a byte order mark', async () => {
    const path = join(tmp.dir, 'bom.jsonl');
    writeFileSync(path, '\uFEFF{"id": "r1", "sql": "SELECT 1"}\n{"id": "r2", "sql": null}\n');
    const source = fileSource(path, 'bom');
    expect(await source.predict({ id: 'r1' } as ExportRecord, [])).toBe('SELECT 1');
    expect(await source.predict({ id: 'r2' } as ExportRecord, [])).toBeNull();
  });
});
