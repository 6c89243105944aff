/**
 * The booking document as the server serves it, in both modes, run through `redocly lint` with
 * its recommended rules (https://redocly.com/docs/cli/rules/recommended): no error, no warning.
 * Slow: it runs the CLI as a child process.
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../../server/booking/operations.ts';
import { startTestApi } from '../../helpers/api.ts';

const packageJson = createRequire(import.meta.url).resolve('@redocly/cli/package.json');
const CLI = path.join(path.dirname(packageJson), (JSON.parse(readFileSync(packageJson, 'utf8')) as { bin: { redocly: string } }).bin.redocly);

const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Fetches the document a server in that mode serves and lints it; the CLI's exit code and report. */
async function lintServed(env: Record<string, string>, name: string) {
  const api = await startTestApi(env);
  let text: string;
  try {
    const response = await fetch(`${api.server.url}${OPENAPI_PATH}`);
    expect(response.status).toBe(200);
    text = await response.text();
  } finally {
    await api.close();
  }
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, text);
  // Run in a directory of its own, so no config file widens or narrows the rules; no telemetry, no update check.
  const result = await promisify(execFile)(process.execPath, [CLI, 'lint', '--extends=recommended', '--format=json', file], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  return { code: result.code, report: JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] } };
}

describe('redocly lint of the served booking document', () => {
  it('finds no error and no warning in sandbox mode', async () => {
    const { code, report } = await lintServed({ BOOKING_MODE: 'sandbox' }, 'sandbox');
    expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(code).toBe(0);
  });

  it('finds no error and no warning in proxy mode', async () => {
    const { code, report } = await lintServed({ BOOKING_MODE: 'proxy', BOOKING_UPSTREAM_URL: 'http://127.0.0.1:9', BOOKING_API_KEY: 'k' }, 'proxy');
    expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(code).toBe(0);
  });
});
