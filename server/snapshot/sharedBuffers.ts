/**
 * The shared memory the reader thread (loadWorker.ts) hands each inflated file over in, reused
 * from one file to the next.
 *
 * The serving thread holds a file's bytes for as long as it parses them, seconds under load,
 * longer than its young generation keeps anything. An ArrayBuffer's memory counts there as
 * external memory, and enough of it starts a major collection of the whole heap, in the middle
 * of the reload; V8 does not count a SharedArrayBuffer's memory that way. But a shared buffer's
 * memory is freed only once each thread has collected its handle to it, and the serving thread,
 * having held its handle for seconds, collects it at its next major collection: a new buffer per
 * file would hold all the files of a reload until then. So the serving thread gives each buffer back once it has parsed the file,
 * and the reader copies the next file into it.
 */
export class SharedBuffers {
  readonly #free: SharedArrayBuffer[] = [];

  /**
   * A buffer of at least `length` bytes: the smallest free one large enough, else a new one.
   * When none is large enough the free ones are dropped, so that the pool soon holds only
   * buffers the size of the largest files.
   */
  take(length: number): SharedArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const size = this.#free[i]!.byteLength;
      if (size >= length && (best < 0 || size < this.#free[best]!.byteLength)) best = i;
    }
    if (best >= 0) return this.#free.splice(best, 1)[0]!;
    this.#free.length = 0;
    return new SharedArrayBuffer(length);
  }

  /** Takes back a buffer that no thread reads any more. */
  give(buffer: SharedArrayBuffer): void {
    this.#free.push(buffer);
  }

  /** Drops the free buffers: between reloads the thread holds none. */
  clear(): void {
    this.#free.length = 0;
  }
}
