/**
 * The record bytes cache: the JSON bytes of each record of the snapshot as one selection of one
 * operation writes it (server/answerWriter.ts), so that the next answer with that record copies
 * them instead of writing them again.
 *
 * Keyed by the record object itself: records are frozen when the snapshot is read
 * (server/load.ts), so their bytes under a selection never change while the snapshot is served,
 * and a record that is gone takes its bytes with it (WeakMap). The budget bounds what is kept;
 * once it is spent everything is forgotten at once and the cache fills again with what is asked
 * for now. A new snapshot empties it too, as it empties the response cache.
 */

/** What an entry costs besides its bytes: its Uint8Array and its slots in two maps, roughly. */
const ENTRY_OVERHEAD_BYTES = 160;

export interface RecordBytesCache {
  /** Makes `snapshot` the one served: the cache is emptied when it is another than before. */
  use(snapshot: object): void;
  /** The bytes of `record` under `selection`, when kept. */
  get(selection: object, record: object): Uint8Array | undefined;
  /** Keeps the bytes of `record` under `selection`. */
  set(selection: object, record: object, bytes: Uint8Array): void;
  /** Bytes held now, entries' overhead included. */
  readonly bytes: number;
}

/** @param maxBytes the budget, > 0 */
export function createRecordBytesCache(maxBytes: number): RecordBytesCache {
  // By selection (a plan of server/answerWriter.ts, gone with its operation), then by record.
  let bySelection = new WeakMap<object, WeakMap<object, Uint8Array>>();
  let bytes = 0;
  let served: object | undefined;

  const empty = () => {
    bySelection = new WeakMap();
    bytes = 0;
  };

  return {
    use(snapshot) {
      if (snapshot === served) return;
      served = snapshot;
      empty();
    },
    get(selection, record) {
      return bySelection.get(selection)?.get(record);
    },
    set(selection, record, entry) {
      bytes += entry.length + ENTRY_OVERHEAD_BYTES;
      if (bytes > maxBytes) {
        empty();
        if (entry.length + ENTRY_OVERHEAD_BYTES > maxBytes) return;
        bytes = entry.length + ENTRY_OVERHEAD_BYTES;
      }
      let records = bySelection.get(selection);
      if (records === undefined) bySelection.set(selection, (records = new WeakMap()));
      records.set(record, entry);
    },
    get bytes() {
      return bytes;
    },
  };
}
