/**
 * The peers of `npm run bench`: the GraphQL servers people pick for a read API, each serving the
 * same schema, resolvers and snapshot as the real server (bench/peers/serve.ts), each in its own
 * process, measured in the same rounds as the real server and its raw twin (bench/paired.ts).
 */

import type { PeerSide } from '../paired.ts';
import type { BenchRequest, ServerSetup } from '../scenarios.ts';
import { startAnnouncing, type Child } from '../servers.ts';
import { installedVersion } from './installPeers.ts';

/** One peer server. */
export interface Peer {
  /** Short name: the report's column and the results' key. */
  name: string;
  /** Its process entry, relative to the repository root. */
  entry: string;
  /** The packages it runs, whose versions the report gives. */
  packages: string[];
  /** What RESPONSE_CACHE=1 turns on in it, for the report. */
  cached: string;
  /**
   * The nearest request to `request` that this peer serves as the real server serves `request`;
   * the same request where none is needed.
   */
  adapt(request: BenchRequest): BenchRequest;
}

const asIs = (request: BenchRequest) => request;

/** Every peer, in report order. */
export const PEERS: readonly Peer[] = [
  { name: 'graphql-yoga', entry: 'bench/peers/yoga.ts', packages: ['graphql-yoga', '@graphql-yoga/plugin-response-cache'], cached: '@graphql-yoga/plugin-response-cache', adapt: asIs },
  {
    name: 'Apollo',
    entry: 'bench/peers/apollo.ts',
    packages: ['@apollo/server', '@apollo/server-plugin-response-cache'],
    cached: '@apollo/server-plugin-response-cache, default cache hint',
    // CSRF prevention (on by default) refuses a GET that a browser could send cross-site
    // unless it carries this header (https://www.apollographql.com/docs/apollo-server/security/cors#preventing-cross-site-request-forgery-csrf).
    adapt: (request) => (request.method === 'GET' ? { ...request, headers: { ...request.headers, 'apollo-require-preflight': 'true' } } : request),
  },
  { name: 'mercurius', entry: 'bench/peers/mercurius.ts', packages: ['mercurius', 'fastify', 'mercurius-cache'], cached: 'mercurius-cache (per Query field)', adapt: asIs },
  { name: 'graphql-http', entry: 'bench/peers/graphqlHttp.ts', packages: ['graphql-http', 'graphql'], cached: 'none (no cache of its own)', adapt: asIs },
];

/**
 * Whether the peers run beside the real server of a setup: with one worker at the fixture scale
 * only (the peers run one process each), which keeps a full run within its time.
 */
export function peersRunIn(setup: ServerSetup): boolean {
  return setup.workers === 1 && setup.scale === 1;
}

/** A peer, listening. */
export interface RunningPeer {
  readonly peer: Peer;
  readonly child: Child;
  readonly url: string;
}

/**
 * Starts every peer on the snapshot in `dataDir`, one after the other (each loads the snapshot),
 * with NODE_ENV=production, as the real server runs.
 * @param responseCache the peers' cached configuration (RESPONSE_CACHE=1) or their plain one
 * @throws Error with the peer's output when one cannot start; the ones started are stopped
 */
export async function startPeers(dataDir: string, responseCache: boolean): Promise<RunningPeer[]> {
  const running: RunningPeer[] = [];
  try {
    for (const peer of PEERS) {
      const { child, url } = await startAnnouncing(peer.name, [peer.entry], {
        NODE_ENV: 'production',
        DATA_DIR: dataDir,
        RESPONSE_CACHE: responseCache ? '1' : '0',
      });
      running.push({ peer, child, url });
    }
  } catch (error) {
    await stopPeers(running);
    throw error;
  }
  return running;
}

/** Stops the peers, each with its process group. */
export async function stopPeers(peers: readonly RunningPeer[]): Promise<void> {
  for (const { child } of peers) await child.stop();
}

/**
 * Sends each distinct operation of `requests` once and checks the answer: a peer that answers a
 * 200 with GraphQL errors would otherwise be measured on its error path.
 * @returns why the peer's answers are not comparable, or null when they are
 */
export async function checkPeerAnswers(url: string, requests: readonly BenchRequest[]): Promise<string | null> {
  const firstOfEach = [...new Map(requests.map((r) => [r.name, r])).values()];
  for (const request of firstOfEach) {
    const response = await fetch(new URL(request.path, url), {
      method: request.method,
      headers: request.headers,
      ...(request.method === 'POST' ? { body: request.body } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let errors: { message: string }[] | undefined;
    try {
      errors = (JSON.parse(text) as { errors?: { message: string }[] }).errors;
    } catch {
      return `${request.name}: status ${response.status}, not JSON: ${text.slice(0, 200)}`;
    }
    if (response.status !== 200 || errors) return `${request.name}: status ${response.status}${errors ? `, errors: ${errors.map((e) => e.message).join('; ')}` : ''}`;
  }
  return null;
}

/** The peers of one server start: running, or the reason none could start. */
export type PeersOfRun = { running: RunningPeer[]; error: null } | { running: []; error: string };

/**
 * Each peer's side of a scenario's rounds: its origin and the requests adapted to it, or why it
 * is left out (the peers did not start, or it answered with errors).
 */
export async function peerSides(peers: PeersOfRun, requests: readonly BenchRequest[]): Promise<PeerSide[]> {
  if (peers.error !== null) return PEERS.map((peer) => ({ name: peer.name, url: '', requests, error: `cannot start the peers: ${peers.error}` }));
  const sides: PeerSide[] = [];
  for (const { peer, url } of peers.running) {
    const adapted = requests.map(peer.adapt);
    let error: string | null;
    try {
      error = await checkPeerAnswers(url, adapted);
    } catch (cause) {
      error = (cause as Error).message;
    }
    sides.push({ name: peer.name, url, requests: adapted, error });
  }
  return sides;
}

/** How a peer ran, for the report. */
export interface PeerInfo {
  name: string;
  /** Package and version, e.g. `graphql-yoga 5.24.1`. */
  packages: string[];
  cached: string;
}

/**
 * Every peer with the versions of its packages, as installed (bench/peers/installPeers.ts).
 * @throws Error naming a package that is not installed
 */
export function describePeers(): PeerInfo[] {
  return PEERS.map((peer) => ({ name: peer.name, packages: peer.packages.map((name) => `${name} ${installedVersion(name)}`), cached: peer.cached }));
}
