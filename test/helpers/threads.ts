/**
 * This process's threads as Linux shows them (/proc/self/task): the snapshot reader thread is the
 * one at nice 19.
 */

import { readdirSync, readFileSync } from 'node:fs';

/** Fields of a thread's stat (proc(5)) from the 3rd on, or null once it has ended. */
export function threadStat(task: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The nice value of a thread of this process (its stat's 19th field), or NaN once it has ended. */
export function threadNice(task: string): number {
  return Number(threadStat(task)?.[16] ?? Number.NaN);
}

/** The CPU time a thread has used (its stat's utime and stime), in clock ticks. */
export function threadTicks(task: string): number | null {
  const stat = threadStat(task);
  return stat === null ? null : Number(stat[11]) + Number(stat[12]);
}

/** Kernel clock ticks per second (USER_HZ): 100 on every Linux architecture Node runs on. */
export const TICKS_PER_S = 100;

/** The ids of this process's threads at the lowest priority (nice 19): the snapshot reader's. */
export function lowPriorityThreads(): string[] {
  return readdirSync('/proc/self/task').filter((task) => threadNice(task) === 19);
}
