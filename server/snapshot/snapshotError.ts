/** A snapshot that must not be served; the message names the file and what is wrong. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}
