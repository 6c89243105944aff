/**
 * One record as a content file holds it (sync/publish/write.ts encodeRecords): its JSON, with
 * every UTF-16 unit above ASCII as a `\uXXXX` escape (the halves of a surrogate pair one by one,
 * as JSON allows), so the file is ASCII.
 */
export function recordLine(record: unknown): string {
  return escapeNonAscii(JSON.stringify(record));
}

/** `json` with every character outside ASCII escaped as `\uXXXX`. */
export function escapeNonAscii(json: string): string {
  return json.replace(NON_ASCII, escapeUnicode);
}

const NON_ASCII = /[\u0080-\uffff]/g;

function escapeUnicode(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
