/**
 * The record bytes cache: the JSON bytes of each record of the snapshot as one selection of one
 * operation writes it (server/execution/json/answerWriter.ts), so that the next answer with that record copies
 * them instead of writing them again. For the copies of a record made per request (near-me, with
 * their distance), the bytes around the fields the copy changes.
 *
 * Keyed by the record object itself: records are frozen when the snapshot is read
 * (server/snapshot/load.ts), so their bytes under a selection never change while the snapshot is served,
 * and a record that is gone takes its bytes with it (WeakMap). The budget bounds what is kept;
 * once it is spent everything is forgotten at once and the cache fills again with what is asked
 * for now. A new snapshot empties it too, as it empties the response cache.
 *
 * Parts are copied side by side into chunks of {@link CHUNK_BYTES}, each kept as a view of its
 * chunk. An allocation of its own per part (an ArrayBuffer, its backing store and their
 * bookkeeping, anywhere in memory) costs more memory, and reading parts scattered over memory
 * back is slower than reading them side by side.
 */

// What a view and its map slots take on the heap, rounded: enough to keep the budget honest.
/** What an entry costs besides its bytes: its view and its slots in two maps. */
const ENTRY_OVERHEAD_BYTES = 140;
/** What each segment of a {@link PartWithHoles} costs besides its bytes: its view. */
const SEGMENT_OVERHEAD_BYTES = 100;
/**
 * Bytes of a chunk: the least budget allowed (RECORD_CACHE_BYTES), so that a cache never holds
 * a chunk much larger than its budget. A part longer than a chunk gets a chunk of its size.
 */
const CHUNK_BYTES = 65_536;

/** What is kept of a record under a selection: its bytes, or those around the fields a copy of it changes. */
export type RecordPart = Uint8Array | PartWithHoles;

/** The bytes of a record's copy under a selection, but for the field the copy replaced. */
export interface PartWithHoles {
  /** The field the copy replaced, whose values are written per request. */
  readonly replaced: string;
  /** The bytes before the first value of that field, between two, and after the last. */
  readonly segments: readonly Uint8Array[];
}

export interface RecordBytesCache {
  /** Makes `snapshot` the one served: the cache is emptied when it is another than before. */
  use(snapshot: object): void;
  /** What is kept of `record` under `key` (a selection, or its key for copies). */
  get(key: object, record: object): RecordPart | undefined;
  /**
   * Keeps a copy of what was written of `record` under `key`: `part` may be a view of bytes
   * that change afterwards (server/execution/json/jsonWriter.ts since).
   */
  set(key: object, record: object, part: RecordPart): void;
  /** Bytes held now, entries' overhead included. */
  readonly bytes: number;
}

/** @param maxBytes the budget, > 0 */
export function createRecordBytesCache(maxBytes: number): RecordBytesCache {
  // By selection (a plan of server/execution/json/answerWriter.ts, gone with its operation), then by record.
  let bySelection = new WeakMap<object, WeakMap<object, RecordPart>>();
  let bytes = 0;
  let served: object | undefined;
  // The chunk being filled and how much of it is; the chunks before it are held by their views.
  let chunk = new Uint8Array(0);
  let used = 0;

  const empty = () => {
    bySelection = new WeakMap();
    bytes = 0;
    chunk = new Uint8Array(0);
    used = 0;
  };

  /** A copy of `source` in the chunk being filled. */
  const copy = (source: Uint8Array): Uint8Array => {
    if (used + source.length > chunk.length) {
      chunk = new Uint8Array(Math.max(CHUNK_BYTES, source.length));
      used = 0;
    }
    chunk.set(source, used);
    used += source.length;
    return chunk.subarray(used - source.length, used);
  };

  return {
    use(snapshot) {
      if (snapshot === served) return;
      served = snapshot;
      empty();
    },
    get(key, record) {
      return bySelection.get(key)?.get(record);
    },
    set(key, record, part) {
      const size = sizeOf(part);
      bytes += size;
      if (bytes > maxBytes) {
        empty();
        if (size > maxBytes) return;
        bytes = size;
      }
      let records = bySelection.get(key);
      if (records === undefined) bySelection.set(key, (records = new WeakMap()));
      records.set(record, part instanceof Uint8Array ? copy(part) : { replaced: part.replaced, segments: part.segments.map(copy) });
    },
    get bytes() {
      return bytes;
    },
  };
}

/** The bytes a part holds, with the overhead of its entry and of each segment. */
function sizeOf(part: RecordPart): number {
  if (part instanceof Uint8Array) return part.length + ENTRY_OVERHEAD_BYTES;
  let size = ENTRY_OVERHEAD_BYTES;
  for (const segment of part.segments) size += segment.length + SEGMENT_OVERHEAD_BYTES;
  return size;
}
