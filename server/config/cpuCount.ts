import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * The number of CPUs this process may use: the cores Node sees, capped by a cgroup v2 CPU quota
 * (`cpu.max`, as a container runtime or Kubernetes sets from its CPU limit), rounded up.
 * os.availableParallelism() alone counts the host's cores, so a container limited to one CPU on
 * a 32-core host would start 32 workers.
 *
 * @param cpuMax the text of `cpu.max` ("<quota> <period>" or "max <period>"); default read from
 *   /sys/fs/cgroup/cpu.max, absent outside a cgroup v2 container
 */
export function cpuCount(cpuMax: string | null = readCpuMax()): number {
  const cores = availableParallelism();
  const [quota, period] = (cpuMax ?? '').trim().split(/\s+/).map(Number);
  if (quota === undefined || period === undefined || !(quota > 0) || !(period > 0)) return cores;
  return Math.max(1, Math.min(cores, Math.ceil(quota / period)));
}

function readCpuMax(): string | null {
  try {
    return readFileSync('/sys/fs/cgroup/cpu.max', 'utf8');
  } catch {
    return null;
  }
}
