import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readProcessGroup } from '../../bench/servers.ts';

/** A primary that forks two cluster workers and starts one process that is not Node.js, all in one group. */
const PRIMARY = `
const cluster = require('node:cluster');
if (cluster.isPrimary) {
  require('node:child_process').spawn('sleep', ['60'], { stdio: 'ignore' });
  let online = 0;
  cluster.on('online', () => { if (++online === 2) console.log('ready'); });
  cluster.fork();
  cluster.fork();
} else {
  setInterval(() => {}, 1000);
}
`;

describe('readProcessGroup', () => {
  it.runIf(process.platform === 'linux')('counts the Node.js processes of a group, whatever they are named, and not its other processes', async () => {
    // A file, not `-e`: cluster workers run the primary's script.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'process-group-'));
    const script = path.join(dir, 'primary.cjs');
    fs.writeFileSync(script, PRIMARY);
    const primary = spawn(process.execPath, [script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(primary.stdout!, 'data')) as [Buffer];
      expect(line.toString()).toContain('ready');
      const group = await readProcessGroup(primary.pid!);
      expect(group?.processes).toBe(3);
      expect(group?.cpuTicks).toBeGreaterThanOrEqual(0);
    } finally {
      process.kill(-primary.pid!, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
