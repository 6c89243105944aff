/** Canonical JSON: one text per value, whatever the order its objects' keys came in. */

/** JSON with object keys in sorted order, so equal values have one text. */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${text}}`;
}
