import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { measurePull, renderPull } from '../../bench/pull.ts';
import { createTinySnapshot } from '../helpers/tinySnapshot.ts';

describe('bench/pull.ts', () => {
  it('pulls every file of a dataset in a process of its own and reports its peak RSS above its RSS before, and the cost of a poll', async () => {
    const tiny = await createTinySnapshot();
    try {
      const files = [...Object.values(tiny.manifest.sources).flatMap((source) => Object.values(source!.locales).flatMap((areas) => Object.values(areas!))), tiny.manifest.changes!];
      const sizes = await Promise.all(files.map(async ({ file }) => (await fs.stat(path.join(tiny.dir, file))).size));
      const run = await measurePull(1, tiny.dir);
      expect(run).toMatchObject({ scale: 1, files: files.length, bytes: sizes.reduce((a, b) => a + b) });
      expect(run.peakRssMB).toBeGreaterThanOrEqual(run.rssBeforeMB);
      expect(run.pollCpuMs).toBeGreaterThan(0);
      const table = renderPull([run]);
      expect(table[0]).toBe('## Pull mode');
      expect(table.find((line) => line.startsWith('| 1x |'))).toContain(`| ${files.length} |`);
    } finally {
      await tiny.remove();
    }
  });
});
