import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseCommand } from '../../sync/main.ts';
import { SOURCE_NAMES } from '../../sync/format.ts';

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}

const workflow = parse(readFileSync(new URL('../../.github/workflows/sync.yml', import.meta.url), 'utf8')) as {
  on: { schedule: { cron: string }[]; workflow_dispatch: { inputs: Record<string, { type: string }> } };
  concurrency: { group: string; 'cancel-in-progress': boolean };
  permissions: Record<string, string>;
  env: { DATA_BRANCH: string; SOURCES_BY_SCHEDULE: string };
  jobs: { sync: { steps: Step[] } };
};
const crons = workflow.on.schedule.map((s) => s.cron);
const sourcesBySchedule = JSON.parse(workflow.env.SOURCES_BY_SCHEDULE) as Record<string, string>;
const steps = workflow.jobs.sync.steps;
const step = (id: string) => steps.find((s) => s.id === id || s.name === id)!;

/** The cron that syncs `source`. */
function cronOf(source: string): string {
  const matches = Object.entries(sourcesBySchedule).filter(([, sources]) => sources.split(' ').includes(source));
  expect(matches, `${source} is synced by exactly one schedule`).toHaveLength(1);
  return matches[0]![0];
}

describe('.github/workflows/sync.yml', () => {
  it('has a source list for every schedule and a schedule for every source list', () => {
    expect(Object.keys(sourcesBySchedule).sort()).toEqual([...crons].sort());
  });

  it('syncs stations and routes daily at 04:00 UTC', () => {
    expect(cronOf('snowdata')).toBe('0 4 * * *');
  });

  it('syncs activities every 4 hours', () => {
    const [minute, hour, ...rest] = cronOf('activities').split(' ');
    expect(minute).toMatch(/^\d+$/);
    expect(hour).toBe('*/4');
    expect(rest).toEqual(['*', '*', '*']);
  });

  it('syncs tours and attractions once a day', () => {
    expect(cronOf('tours')).toBe(cronOf('attractions'));
    const [minute, hour, ...rest] = cronOf('tours').split(' ');
    expect(minute).toMatch(/^\d+$/);
    expect(hour).toMatch(/^\d+$/);
    expect(rest).toEqual(['*', '*', '*']);
  });

  it('covers every source, and every scheduled command line is one the CLI accepts', () => {
    expect(Object.values(sourcesBySchedule).flatMap((s) => s.split(' ')).sort()).toEqual([...SOURCE_NAMES].sort());
    for (const sources of Object.values(sourcesBySchedule)) {
      expect(parseCommand([...sources.split(' '), '--data-dir', 'snapshot'], {})).toMatchObject({ kind: 'sync', dataDir: 'snapshot' });
    }
  });

  it('can be run by hand with sources, force and rollback', () => {
    expect(workflow.on.workflow_dispatch.inputs).toMatchObject({ sources: { type: 'string' }, force: { type: 'boolean' }, rollback: { type: 'boolean' } });
    expect(parseCommand(['--rollback', '--data-dir', 'snapshot'], {})).toEqual({ kind: 'rollback', dataDir: 'snapshot' });
  });

  it('has shell steps that bash can parse', () => {
    for (const s of steps.filter((s) => s.run)) {
      const check = spawnSync('bash', ['-n'], { input: s.run, encoding: 'utf8' });
      expect(check.stderr, s.name ?? s.run).toBe('');
      expect(check.status).toBe(0);
    }
  });

  it('never runs two syncs at once', () => {
    expect(workflow.concurrency.group).toBeTruthy();
    expect(workflow.concurrency['cancel-in-progress']).toBe(false);
  });

  it('runs the sync CLI on the data branch snapshot with the keys from repository secrets', () => {
    const sync = step('sync');
    expect(sync.run).toContain('npm run sync -- "${args[@]}"');
    expect(sync.run).toContain('args=(--data-dir snapshot)');
    expect(sync.run).toContain('args+=(--rollback)');
    expect(sync.run).toContain('args+=(--force)');
    for (const key of ['MYSWITZERLAND_API_KEY', 'SWISSACTIVITIES_API_KEY', 'STNET_USERNAME', 'STNET_API_KEY']) {
      expect(sync.env![key]).toBe(`\${{ secrets.${key} }}`);
    }
    // Inputs reach the shell through the environment, never spliced into the script.
    expect(sync.run).not.toContain('${{');
    expect(steps.findIndex((s) => s.run?.includes('git archive FETCH_HEAD | tar -x -C snapshot'))).toBeLessThan(steps.indexOf(sync));
  });

  it('publishes to the data branch also when some sources failed, and then fails the run', () => {
    const publish = step('Publish the snapshot to the data branch');
    expect(workflow.env.DATA_BRANCH).toBe('data');
    expect(workflow.permissions.contents).toBe('write');
    expect(publish.if).toBe("steps.sync.outputs.exit == '0' || steps.sync.outputs.exit == '1'");
    expect(publish.run).toContain('git push --force origin "$commit:refs/heads/$DATA_BRANCH"');
    const fail = step('Fail when a source did not publish');
    expect(fail.if).toBe("steps.sync.outputs.exit != '0'");
    expect(steps.indexOf(fail)).toBeGreaterThan(steps.indexOf(publish));
  });
});
