/**
 * Ends responses at the end of the event-loop turn that computed them, all together.
 *
 * In one turn Node reads every request that has arrived (its poll phase), and our resolvers
 * answer synchronously; written as each is computed, every answer may wake its reader anew.
 * Written back to back in the turn's check phase (setImmediate), the reader woken by the first
 * finds the others when it looks. The wake-ups are what this saves: on loopback (a proxy,
 * sidecar or load balancer on the same host) and on virtual machines, waking a sleeping
 * process on another core costs more than the write itself. Measured on our 2-core VM under
 * autocannon (50 connections): an uncached activities list, 15.4k req/s written at once, 19.3k
 * req/s written at the end of the turn (Node 20); the cached one-letter typeahead, two servers
 * loaded in turns, 1.15x and 1.25x the rate written at the end of the turn, at 14.4-15.0 rather
 * than 16.7-21.6 us of CPU an answer (Node 24, 2 x 8 rounds, no round below 1.09x). A lone
 * request waits one turn, a few microseconds; a busy turn delays its first answers by the time
 * its last ones took.
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
