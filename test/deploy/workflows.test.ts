import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

interface Job {
  'runs-on': string;
  'timeout-minutes': number;
  container?: { image: string; options?: string };
  strategy?: { matrix: Record<string, unknown[]> };
  steps: Step[];
}

interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}

const read = (file: string) => parse(fs.readFileSync(path.join(ROOT, '.github/workflows', file), 'utf8')) as Workflow;
const ci = read('ci.yml');
const sync = read('sync.yml');
const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const DOCKERFILE = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

const commands = (job: Job) => job.steps.flatMap((step) => (step.run ?? '').split('\n').map((line) => line.trim()).filter((line) => line !== ''));
/** Index of the first step whose command line starts with `prefix`. */
const stepIndex = (job: Job, prefix: string) => job.steps.findIndex((step) => step.run?.split('\n').some((line) => line.trim().startsWith(prefix)));

describe('.github/workflows', () => {
  it('runs CI on every push and pull request, and the sync on schedules and by hand only', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
    expect(ci.on.push).toBeNull();
    expect(ci.on.pull_request).toBeNull();
    expect(Object.keys(sync.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(ci.permissions).toEqual({ contents: 'read' });
  });

  it('installs, runs every test (npm run test:all) with the browser tests required, and builds, in that order, on Debian with each Node.js major in its matrix', () => {
    const job = ci.jobs.test!;
    expect(job.container).toEqual({ image: 'node:${{ matrix.node }}-bookworm', options: '--privileged' });
    expect(job.steps[0]!.uses).toBe('actions/checkout@v4');
    const order = [
      'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium iproute2',
      'npm ci --no-audit --no-fund',
      'npm run test:all',
      'npm run build',
    ].map((command) => stepIndex(job, command));
    expect(order.every((index) => index > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(job.steps[order[2]!]!).toMatchObject({ env: { REQUIRE_BROWSER_TESTS: '1' } });
  });

  it('runs in npm run test:all what npm test runs, then the slow tests and the load test, as .ci/run does', () => {
    expect(scripts.test).toBe('tsc --noEmit && vitest run --project unit');
    expect(scripts['test:all']).toBe('npm test && vitest run --project slow && npm run test:load');
    const ciRun = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8').split('\n');
    expect(ciRun).toContain('export REQUIRE_BROWSER_TESTS=1');
    expect(ciRun.indexOf('npm run test:all')).toBeGreaterThan(ciRun.indexOf('npm ci --no-audit --no-fund'));
  });

  it('builds the image, runs it read-only until its HEALTHCHECK passes, queries it and stops it with exit 0', () => {
    const job = ci.jobs.image!;
    expect(job.container).toBeUndefined();
    const lines = commands(job);
    expect(lines).toContain('docker build --tag tourism-api:ci .');
    const runLine = lines.find((line) => line.startsWith('docker run '))!;
    expect(runLine).toContain('--read-only');
    expect(runLine).toContain(`--publish ${/^EXPOSE (\d+)$/m.exec(DOCKERFILE)![1]}:`);
    expect(lines).toContain("status=$(docker inspect --format '{{.State.Health.Status}}' api)");
    expect(lines.some((line) => line.startsWith('curl --fail') && line.includes('/api/graphql'))).toBe(true);
    const stop = lines.findIndex((line) => line.startsWith('docker stop'));
    expect(lines.slice(stop)).toContain("code=$(docker inspect --format '{{.State.ExitCode}}' api)");
  });

  it('runs only npm scripts that exist, each after npm ci', () => {
    for (const workflow of [ci, sync]) {
      for (const job of Object.values(workflow.jobs)) {
        const lines = commands(job);
        const install = lines.findIndex((line) => line.startsWith('npm ci'));
        for (const [index, line] of lines.entries()) {
          const script = /\bnpm run ([\w:-]+)/.exec(line)?.[1];
          if (script === undefined) continue;
          expect(Object.keys(scripts), line).toContain(script);
          expect(install, line).toBeGreaterThanOrEqual(0);
          expect(index).toBeGreaterThan(install);
        }
      }
    }
  });

  it('tests on the lowest Node.js major package.json allows and on the one the Dockerfile runs, which the sync runs on too', () => {
    const imageMajor = Number(/^ARG NODE_MAJOR=(\d+)$/m.exec(DOCKERFILE)![1]);
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const lowestMajor = Number(/^>=(\d+)\./.exec(engines)![1]);
    expect(ci.jobs.test!.strategy?.matrix.node).toEqual([...new Set([lowestMajor, imageMajor])]);
    const setupNode = sync.jobs.sync!.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(setupNode?.with?.['node-version']).toBe(imageMajor);
  });

  it('has shell steps that bash can parse, in both workflows', () => {
    for (const workflow of [ci, sync]) {
      for (const job of Object.values(workflow.jobs)) {
        expect(job['timeout-minutes']).toBeGreaterThan(0);
        for (const step of job.steps.filter((s) => s.run !== undefined)) {
          const check = spawnSync('bash', ['-n'], { input: step.run, encoding: 'utf8' });
          expect(check.stderr, step.name ?? step.run).toBe('');
          expect(check.status).toBe(0);
        }
      }
    }
  });
});
