/**
 * What a pulled manifest must be before any of its files is fetched: signed by one of the
 * trusted keys (when there are any), JSON of this server's formatVersion, and naming only files
 * of its own version directory, as the sync writes them. The records are checked later, by the
 * load every snapshot goes through (load.ts).
 */

import { type KeyObject, verify } from 'node:crypto';
import { changesPath, contentPath, FORMAT_VERSION, geometryPath, LOCALES, type FileEntry, type Manifest, SOURCE_AREAS, type SourceName } from '../../../sync/format.ts';
import { PullError } from './pullError.ts';

/** A version id as the sync makes them (sync/format.ts versionId, with a suffix when taken): safe as a directory name. */
export const VERSION_ID = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ(-\d+)?$/;

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Whether one of `keys` verifies `signature` (the signature file's text: base64) over the
 * manifest's bytes.
 *
 * @throws PullError `signature` when none does
 */
export function verifySignature(manifestBytes: Uint8Array, signatureText: string, keys: readonly KeyObject[], url: string): void {
  const signature = Buffer.from(signatureText.trim(), 'base64');
  // Ed25519 signatures are 64 bytes; anything else is not one, whatever a key says.
  if (signature.length === 64 && keys.some((key) => verify(null, manifestBytes, key, signature))) return;
  throw new PullError('signature', `${url}: the signature does not verify with ${keys.length === 1 ? 'the key' : `any of the ${keys.length} keys`} of SNAPSHOT_PUBLIC_KEY; the manifest is refused`);
}

/**
 * Parses and checks a pulled manifest's bytes.
 *
 * @returns the manifest and every file it names
 * @throws PullError `manifest` naming what is wrong
 */
export function checkPulledManifest(bytes: Uint8Array, url: string): { manifest: Manifest; files: FileEntry[] } {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(bytes).toString('utf8')) as Manifest;
  } catch (error) {
    throw new PullError('manifest', `${url}: not JSON (${(error as Error).message})`);
  }
  const refuse = (what: string) => new PullError('manifest', `${url}: ${what}`);
  if (typeof manifest !== 'object' || manifest === null) throw refuse('not a JSON object');
  if (manifest.formatVersion !== FORMAT_VERSION) throw refuse(`formatVersion ${JSON.stringify(manifest.formatVersion)}, expected ${FORMAT_VERSION}`);
  if (typeof manifest.version !== 'string' || !VERSION_ID.test(manifest.version)) throw refuse(`version ${JSON.stringify(manifest.version)} is not a version id such as 2026-11-21T04-00-00Z`);
  if (typeof manifest.sources !== 'object' || manifest.sources === null) throw refuse('no "sources"');
  const files: FileEntry[] = [];
  for (const [name, entry] of Object.entries(manifest.sources)) {
    const areas = SOURCE_AREAS[name as SourceName] as readonly string[] | undefined;
    if (!areas) throw refuse(`unknown source "${name}"`);
    for (const [locale, byArea] of Object.entries(entry?.locales ?? {})) {
      if (!(LOCALES as readonly string[]).includes(locale)) throw refuse(`${name}: unknown locale "${locale}"`);
      for (const [area, file] of Object.entries(byArea ?? {})) {
        if (!areas.includes(area)) throw refuse(`${name}: unknown area "${area}"`);
        // The one path the sync writes for it: nothing outside the version's own directory.
        const expected = contentPath(manifest.version, locale as never, area as never);
        if (file?.file !== expected) throw refuse(`${name} ${locale} ${area}: file ${JSON.stringify(file?.file)}, expected ${expected}`);
        if (typeof file.sha256 !== 'string' || !SHA256.test(file.sha256)) throw refuse(`${expected}: sha256 ${JSON.stringify(file.sha256)} is not 64 hex digits`);
        files.push(file);
      }
    }
  }
  // The version's change lists, which the server reads with its files.
  const changes = manifest.changes;
  if (changes === undefined) throw refuse('no "changes" (the change lists every version names)');
  if (changes?.file !== changesPath(manifest.version)) throw refuse(`changes: file ${JSON.stringify(changes?.file)}, expected ${changesPath(manifest.version)}`);
  if (typeof changes.sha256 !== 'string' || !SHA256.test(changes.sha256)) throw refuse(`${changes.file}: sha256 ${JSON.stringify(changes.sha256)} is not 64 hex digits`);
  files.push(changes);
  // The tours' lines, when a tour has one.
  const geometry = manifest.geometry;
  if (geometry !== undefined) {
    if (geometry?.file !== geometryPath(manifest.version)) throw refuse(`geometry: file ${JSON.stringify(geometry?.file)}, expected ${geometryPath(manifest.version)}`);
    if (typeof geometry.sha256 !== 'string' || !SHA256.test(geometry.sha256)) throw refuse(`${geometry.file}: sha256 ${JSON.stringify(geometry.sha256)} is not 64 hex digits`);
    files.push(geometry);
  }
  return { manifest, files };
}
