/**
 * Ends the responses computed in one event-loop turn together, at its end (setImmediate): a reader
 * woken by the first write finds the others, and waking a process on another core (a proxy on
 * loopback, a virtual machine) costs more than the write. A lone request waits one turn.
 */

import type { ServerResponse } from 'node:http';

// Two parallel arrays rather than a closure or a tuple per answer: this is the hot path.
let responses: ServerResponse[] = [];
let bodies: Buffer[] = [];

/** Ends `res` with `body` at the end of this event-loop turn; its head must be written already. */
export function endAtEndOfTurn(res: ServerResponse, body: Buffer): void {
  if (responses.push(res) === 1) setImmediate(flush);
  bodies.push(body);
}

function flush(): void {
  // Taken out first: an answer queued while these are ended (by a listener) waits for the next turn.
  const batch = responses;
  const batchBodies = bodies;
  responses = [];
  bodies = [];
  for (let i = 0; i < batch.length; i++) batch[i]!.end(batchBodies[i]);
}
