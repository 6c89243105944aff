/**
 * The field comparison every source's probe shares: which fields an answer has that the
 * adapter does not read, and which it reads that the answer lacks. The probe's result type,
 * ProbeEndpoint, is part of the source contract (sync/source.ts).
 */

/**
 * The dotted field paths of a JSON value (`a.b`, list items as `a[].b`), leaves and branches
 * alike, so that both an unknown object and an unknown leaf show.
 */
export function fieldPaths(value: unknown, prefix = ''): Set<string> {
  const paths = new Set<string>();
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, `${at}[]`);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      const path = at ? `${at}.${key}` : key;
      paths.add(path);
      walk(child, path);
    }
  };
  walk(value, prefix);
  return paths;
}

/**
 * Compares the fields the records of an answer have with the fields an adapter reads.
 *
 * @param records the records of one answer page
 * @param known the dotted paths the adapter reads (list items as `[]`); everything under a
 *   known path that has no known path below it counts as read
 * @returns what the records have beyond `known` (only the topmost unknown path of a branch)
 *   and what of `known` none of them has, each sorted
 */
export function compareFields(records: readonly unknown[], known: readonly string[]): { unexpectedFields: string[]; missingFields: string[] } {
  const seen = new Set<string>();
  for (const record of records) for (const path of fieldPaths(record)) seen.add(path);
  const under = (path: string, branch: string) => path.startsWith(`${branch}.`) || path.startsWith(`${branch}[]`);
  // A known path with nothing known below it is read whole (a JSON blob, a text list).
  const leaves = known.filter((k) => !known.some((other) => under(other, k)));
  const unexpected = [...seen].filter((path) => !known.includes(path) && !leaves.some((leaf) => under(path, leaf)));
  // Report a branch once: `a.b` unknown hides `a.b.c`.
  const topmost = unexpected.filter((path) => !unexpected.some((other) => under(path, other)));
  return { unexpectedFields: topmost.sort(), missingFields: known.filter((path) => !seen.has(path)).sort() };
}
