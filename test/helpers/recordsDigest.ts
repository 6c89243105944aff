/**
 * A short stand-in for a snapshot's records, for tests where two loads or two builds must hold
 * the same records in the same order but no record itself is under test: comparing digests is
 * cheap where a deep comparison of every record is not, and a difference still names the area.
 */

import { createHash } from 'node:crypto';

/**
 * @param locales records per locale and area, as a Snapshot's `locales` holds them
 * @returns per `"<locale> <area>"`, the record count and the sha256 of the records' JSON
 */
export function recordsDigest(locales: Readonly<Record<string, Readonly<Record<string, readonly unknown[]>>>>): Record<string, string> {
  const digest: Record<string, string> = {};
  for (const [locale, areas] of Object.entries(locales)) {
    for (const [area, records] of Object.entries(areas)) {
      digest[`${locale} ${area}`] = `${records.length} records, sha256 ${createHash('sha256').update(JSON.stringify(records)).digest('hex')}`;
    }
  }
  return digest;
}
