import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Step {
  name?: string;
  if?: string;
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

  it('uploads to a bucket only when SNAPSHOT_BUCKET is set and a version was published, the files first and the signed manifest last', () => {
    const steps = sync.jobs.sync!.steps;
    const upload = steps.find((step) => step.name === 'Upload the snapshot to the bucket')!;
    const publish = steps.find((step) => step.name === 'Publish the snapshot to the data branch')!;
    expect(upload.if).toBe("steps.publish.outputs.changed == 'true' && vars.SNAPSHOT_BUCKET != ''");
    expect(steps.indexOf(upload)).toBeGreaterThan(steps.indexOf(publish));
    expect(publish.run).toContain('echo "changed=true" >> "$GITHUB_OUTPUT"');
    expect(steps.find((step) => step.name === 'Sync')!.env).toMatchObject({ SNAPSHOT_SIGNING_KEY: '${{ secrets.SNAPSHOT_SIGNING_KEY }}' });

    // The step's script as written, with each cloud CLI a stand-in that records its arguments.
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-'));
    try {
      fs.mkdirSync(path.join(work, 'bin'));
      fs.mkdirSync(path.join(work, 'snapshot/2026-11-21T04-00-00Z'), { recursive: true });
      fs.writeFileSync(path.join(work, 'snapshot/manifest.json'), '{"version":"2026-11-21T04-00-00Z"}');
      fs.writeFileSync(path.join(work, 'snapshot/manifest.json.sig'), 'c2ln\n');
      for (const cli of ['aws', 'gcloud']) {
        fs.writeFileSync(path.join(work, 'bin', cli), `#!/bin/sh\necho "${cli} $*" >> "$CALLS"\n`, { mode: 0o755 });
      }
      const run = (bucket: string) => {
        const calls = path.join(work, `calls-${bucket.slice(0, 2)}`);
        const result = spawnSync('bash', ['--norc', '--noprofile', '-e', '-c', upload.run!], {
          stdio: ['ignore', 'pipe', 'pipe'],
          cwd: work,
          encoding: 'utf8',
          env: { PATH: `${path.join(work, 'bin')}:${process.env.PATH}`, CALLS: calls, SNAPSHOT_BUCKET: bucket, GITHUB_STEP_SUMMARY: path.join(work, 'summary') },
        });
        expect(result.stderr).toBe('');
        return fs.readFileSync(calls, 'utf8').trim().split('\n');
      };
      expect(run('s3://bucket/tourism/')).toEqual([
        "aws s3 sync snapshot/ s3://bucket/tourism/ --exclude manifest.json --exclude manifest.json.sig --exclude *.lock --delete",
        'aws s3 cp snapshot/manifest.json.sig s3://bucket/tourism/manifest.json.sig --cache-control no-cache',
        'aws s3 cp snapshot/manifest.json s3://bucket/tourism/manifest.json --cache-control no-cache --content-type application/json',
      ]);
      expect(run('gs://bucket').map((line) => line.split(' ').slice(0, 5).join(' '))).toEqual([
        'gcloud storage rsync snapshot/ gs://bucket/',
        'gcloud storage cp snapshot/manifest.json.sig gs://bucket/manifest.json.sig',
        'gcloud storage cp snapshot/manifest.json gs://bucket/manifest.json',
      ]);
      expect(fs.readFileSync(path.join(work, 'summary'), 'utf8')).toContain('uploaded snapshot 2026-11-21T04-00-00Z to gs://bucket');
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
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
