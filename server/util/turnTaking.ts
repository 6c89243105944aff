/**
 * Runs tasks one at a time, in the order given, each after a turn of the event loop: work that
 * holds the thread for milliseconds per task lets the requests that arrived meanwhile in between
 * two tasks, however many tasks are asked for at once.
 */
export class TurnTaking {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task given before it has settled and the event loop has had a turn; settles as it does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(nextTurn).then(task);
    // A failed task does not stop the ones after it.
    this.#tail = result.catch(() => {});
    return result;
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
