/**
 * The peers in the report: their targets (ours against the fastest peer), their columns in each
 * scenario's table and their paragraph in BENCHMARKS.md's header.
 */

import type { PeerResult } from '../paired.ts';
import type { HttpRun, TargetCheck } from '../reportTypes.ts';
import { PEERS, type PeerInfo } from './peers.ts';

/** Uncached: our req/s over the fastest peer's. */
const UNCACHED_OVER_PEERS = 1.5;
/** Cached: our req/s over the fastest peer's cached configuration. */
const CACHED_OVER_PEERS = 1.2;

/** The `figure` of a run's check against the peers: apart from its checks against the raw twin. */
export function peersFigure(where: string): string {
  return `${where}, against the peers`;
}

/** The fastest peer of a run that measured peers, or null when none was measured. */
function fastestPeer(run: HttpRun): (PeerResult & { figures: NonNullable<PeerResult['figures']> }) | null {
  const measured = (run.paired?.peers ?? []).filter((p): p is PeerResult & { figures: NonNullable<PeerResult['figures']> } => p.figures !== null);
  return measured.length === 0 ? null : measured.reduce((a, b) => (b.figures.reqPerS > a.figures.reqPerS ? b : a));
}

/**
 * The check of a run against the peers: ours ≥ 1.5× the fastest peer uncached, ≥ 1.2× its cached
 * configuration with the cache on; none for a run without peers.
 * @param where the run's scenario and setup, as its other checks name them
 */
export function checkPeers(run: HttpRun, where: string): TargetCheck[] {
  const peers = run.paired?.peers;
  if (!peers) return [];
  const factor = run.setup.responseCache ? CACHED_OVER_PEERS : UNCACHED_OVER_PEERS;
  const fastest = fastestPeer(run);
  const missing = peers.filter((p) => p.figures === null).map((p) => `${p.name}: ${p.error ?? 'not measured'}`);
  const over = fastest && fastest.figures.reqPerS > 0 ? run.paired!.real.reqPerS / fastest.figures.reqPerS : null;
  return [
    {
      target: run.setup.responseCache ? `response cache on: ≥ ${factor}× the fastest peer's cached configuration` : `uncached: ≥ ${factor}× the fastest peer`,
      figure: peersFigure(where),
      value: over === null ? 'n/a' : `${over.toFixed(2)}× ${fastest!.name}`,
      measured: over,
      higherIsBetter: true,
      met: over === null ? null : over >= factor,
      note: missing.length > 0 ? `not measured: ${missing.join('; ')}` : null,
    },
  ];
}

/** The header cells of the peers' columns in a scenario's table, and their alignment row. */
export function peerColumns(): { header: string[]; align: string[] } {
  return { header: [...PEERS.map((p) => `${p.name} ÷ raw`), 'Ours ÷ fastest peer'], align: [...PEERS.map(() => '---:'), '---'] };
}

/**
 * A run's cells in the peers' columns: each peer's ratio to raw, and ours over the fastest peer
 * with its verdict; dashes where the peers did not run.
 */
export function peerCells(run: HttpRun, check: TargetCheck | undefined): string[] {
  const peers = run.paired?.peers;
  if (!peers) return [...PEERS.map(() => '—'), '—'];
  const cells = PEERS.map((peer) => {
    const result = peers.find((p) => p.name === peer.name);
    return result?.ratio == null ? 'n/a' : `${(result.ratio * 100).toFixed(1)} %`;
  });
  const verdict = check === undefined || check.met === null ? '–' : check.met ? '✓' : '✗';
  return [...cells, check?.measured == null ? `n/a ${verdict}` : `**${check.value}** ${verdict}`];
}

/** BENCHMARKS.md's paragraph on the peers: which ran, how, and in which rows. */
export function peersIntro(peers: readonly PeerInfo[] | undefined): string[] {
  if (!peers || peers.length === 0) return [];
  return [
    '**Peers**, in the same rounds (real, raw, then each peer, each in its own process), serving the same `schema.graphql`,',
    'resolvers and snapshot with their own production defaults ([docs/performance.md](docs/performance.md#peers)):',
    `${peers.map((p) => `${p.name} (${p.packages.join(', ')}; cached rows: ${p.cached})`).join('; ')}.`,
    'They run in the one-worker rows at 1x only, which keeps the full run near an hour; the other rows show "—".',
    'Each peer column is its req/s over the raw twin\'s, as the ratio column is ours.',
    `Targets: ours ≥ ${UNCACHED_OVER_PEERS}× the fastest peer uncached, ≥ ${CACHED_OVER_PEERS}× the fastest peer\'s cached configuration with the cache on.`,
    '',
  ];
}
