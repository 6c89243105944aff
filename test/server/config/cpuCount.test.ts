import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cpuCount } from '../../../server/config/cpuCount.ts';

describe('cpuCount', () => {
  it('counts every core when the cgroup sets no quota', () => {
    expect(cpuCount('max 100000')).toBe(availableParallelism());
    expect(cpuCount(null)).toBe(availableParallelism());
  });

  it('caps the count at a container CPU quota, rounded up', () => {
    expect(cpuCount('100000 100000')).toBe(1);
    expect(cpuCount('50000 100000')).toBe(1);
    expect(cpuCount('150000 100000')).toBe(Math.min(2, availableParallelism()));
  });

  it('never exceeds the cores Node sees, whatever the quota', () => {
    expect(cpuCount('6400000 100000')).toBe(availableParallelism());
  });

  it('ignores a cpu.max it cannot read', () => {
    expect(cpuCount('garbage')).toBe(availableParallelism());
    expect(cpuCount('')).toBe(availableParallelism());
  });
});
