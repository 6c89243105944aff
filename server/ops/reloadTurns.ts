/**
 * Staggered reloads in a cluster: loading and indexing a new snapshot takes a worker's CPU for a
 * while, so if every worker reloaded when the manifest changed, they would all stall at once.
 * Instead a worker asks the primary for a turn before it loads, and the primary grants turns one
 * worker at a time, first come first served: while one worker reloads, the others serve. A worker
 * that exits while holding its turn (or waiting for one) gives it up.
 */

import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './log.ts';

/** Worker to primary: may I reload? */
const TURN_ASKED = 'reload-turn-asked';
/** Primary to worker: your turn. */
const TURN_GRANTED = 'reload-turn-granted';
/** Worker to primary: done, next one. */
const TURN_RELEASED = 'reload-turn-released';

type TurnMessage = { type: typeof TURN_ASKED | typeof TURN_GRANTED | typeof TURN_RELEASED };

function isTurnMessage(message: unknown, type: TurnMessage['type']): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/**
 * The primary's side: grants reload turns over IPC to one worker at a time, in the order they
 * asked. Call once in the primary, before forking.
 */
export function grantReloadTurns(logger: Logger): void {
  const waiting: Worker[] = [];
  let holder: Worker | undefined;

  const grantNext = () => {
    while (holder === undefined && waiting.length > 0) {
      const next = waiting.shift()!;
      if (!next.isConnected()) continue;
      holder = next;
      next.send({ type: TURN_GRANTED } satisfies TurnMessage);
    }
  };

  cluster.on('message', (worker: Worker, message: unknown) => {
    if (isTurnMessage(message, TURN_ASKED)) {
      waiting.push(worker);
      grantNext();
    } else if (isTurnMessage(message, TURN_RELEASED) && holder?.id === worker.id) {
      holder = undefined;
      grantNext();
    }
  });

  cluster.on('exit', (worker: Worker) => {
    const queued = waiting.findIndex((candidate) => candidate.id === worker.id);
    if (queued !== -1) waiting.splice(queued, 1);
    if (holder?.id !== worker.id) return;
    holder = undefined;
    logger.warn({ worker: worker.id }, `worker ${worker.id} exited during its snapshot reload: the next worker may reload`);
    grantNext();
  });
}

/**
 * A worker's side: the `turn` hook of watchSnapshot (server/snapshot/reload.ts). It asks the
 * primary for a turn and resolves once granted; the release it returns gives the turn back
 * (once, however often it is called).
 */
export function workerReloadTurn(): () => Promise<() => void> {
  // Resolvers of this worker's own asks, in order: the primary grants them in the order sent.
  const asked: (() => void)[] = [];
  process.on('message', (message: unknown) => {
    if (isTurnMessage(message, TURN_GRANTED)) asked.shift()?.();
  });
  return () =>
    new Promise((resolve) => {
      asked.push(() => {
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          if (process.connected) process.send!({ type: TURN_RELEASED } satisfies TurnMessage);
        });
      });
      // Without the primary the worker is draining already: it will not reload again.
      if (process.connected) process.send!({ type: TURN_ASKED } satisfies TurnMessage);
    });
}
