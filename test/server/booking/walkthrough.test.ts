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
import { pdfText } from './helpers.ts';

const DOC = path.resolve(import.meta.dirname, '../../../docs/booking.md');
const SECTION = '## A whole booking flow with curl (sandbox)';

/** The fenced `sh` blocks of the walk-through section, in order. */
function walkthroughBlocks(markdown: string): string[] {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  expect(start, `docs/booking.md has a section "${SECTION}"`).toBeGreaterThan(-1);
  const rest = markdown.slice(start + SECTION.length + 2);
  const section = rest.slice(0, rest.search(/\n## /) === -1 ? undefined : rest.search(/\n## /));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

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
  it('sets the base URL at the top, to the server default, and hard-codes no id or date', async () => {
    const blocks = walkthroughBlocks(await readFile(DOC, 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks[0]!.split('\n')[0]).toBe('B=${B:-http://localhost:4000}');
    const commands = blocks.join('\n').split('\n').filter((line) => !line.trimStart().startsWith('#'));
    for (const line of commands) {
      expect(line, 'an id or a date written into a command').not.toMatch(/\b(rsv|cart|bkg|itm|pay)_[0-9a-f]{16}\b|\b20\d\d-\d\d-\d\d\b/);
    }
  });

  it('runs as written against a live sandbox, from the activity list to a PDF ticket and a cancellation', async () => {
    const script = walkthroughBlocks(await readFile(DOC, 'utf8')).join('\n');
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
