/** CPU work on this thread, for tests of what gives way to it. */

/** Keeps the thread busy for `ms`. */
export function burn(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * Other work beside the code under test, as requests being answered are: `ms` of every turn of
 * the event loop, from now until the returned function is called.
 */
export function startRival(ms: number): () => void {
  let running = true;
  const turn = () => {
    if (!running) return;
    burn(ms);
    setImmediate(turn);
  };
  turn();
  return () => {
    running = false;
  };
}
