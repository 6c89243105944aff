/**
 * docs/booking.md's curl walk-through, run as written: its shell blocks go to bash against the
 * real server (the committed snapshot, the sandbox, the real clock) on a free port, so the page
 * stays true: every id and date must come from the answers, and the PDF step must write a PDF.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { pdfText, WALKTHROUGH_DOC, walkthroughBlocks } from './helpers.ts';

/** Runs a script with bash, failing on the first failed command; never blocks the event loop (the server runs in this process). */
async function runBash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

let api: TestApi;
let dir: string;

beforeAll(async () => {
  api = await startTestApi();
  dir = await mkdtemp(path.join(tmpdir(), 'booking-walkthrough-'));
});

afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the booking walk-through in docs/booking.md', () => {
  it('runs as written against a live sandbox, from the activity list to a PDF ticket and a cancellation', async () => {
    const script = walkthroughBlocks(await readFile(WALKTHROUGH_DOC, 'utf8')).join('\n');
    const result = await runBash(script, dir, { B: api.server.url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^confirmed paid 1 ticket\(s\)$/m);
    expect(result.stdout).toMatch(/"status":"cancelled".*"cancellationReason":"Customer ill"/);

    // A PDF a reader opens (pdf-lib parses it whole), one page, showing the order reference.
    const pdf = await readFile(path.join(dir, 'ticket.pdf'));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(1);
    expect(pdfText(pdf)).toContain('Booking reference: ORDER-2026-0042');
  });
});
