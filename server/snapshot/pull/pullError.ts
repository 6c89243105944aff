/**
 * Why a pull from the origin failed: one of a few reasons, each a label value of
 * `snapshot_pull_failures_total{reason}`, with a message naming the URL and the cause.
 */

/** Every reason a pull fails for; the set is closed, so the metric's labels stay bounded. */
export const PULL_FAILURE_REASONS = [
  /** No connection, or it broke before the answer's headers (DNS, refused, reset). */
  'unreachable',
  /** The answer, headers and whole body, did not arrive within SNAPSHOT_FETCH_TIMEOUT_MS. */
  'timeout',
  /** An answer other than 200 (or 304 to a conditional request): a 5xx, a 404… */
  'status',
  /** A redirect to another origin, which is never followed. */
  'redirect',
  /** A body larger than its bound: SNAPSHOT_MAX_FILE_BYTES for a file. */
  'too_large',
  /** The connection closed before the whole body arrived. */
  'truncated',
  /** A file whose sha256 is not the one its manifest gives. */
  'sha256',
  /** A manifest without a signature that one of SNAPSHOT_PUBLIC_KEY verifies. */
  'signature',
  /** A manifest that is not one this server serves: not JSON, another formatVersion, a file path not of its version. */
  'manifest',
  /** The local cache (DATA_DIR) could not be written. */
  'cache',
] as const;

export type PullFailureReason = (typeof PULL_FAILURE_REASONS)[number];

/** A pull that failed; the served snapshot stays. */
export class PullError extends Error {
  override name = 'PullError';

  constructor(
    readonly reason: PullFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
