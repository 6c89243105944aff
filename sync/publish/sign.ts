/**
 * Ed25519 signatures of the manifest (node:crypto): the key pair of `--keygen`, the signing key
 * of SNAPSHOT_SIGNING_KEY, and the detached signature written beside `manifest.json`
 * (MANIFEST_SIGNATURE_FILE in sync/format.ts says what its bytes are).
 */

import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';

/** A SNAPSHOT_SIGNING_KEY that is not an Ed25519 private key. */
export class SigningKeyError extends Error {
  override name = 'SigningKeyError';
}

/**
 * A new key pair as the two lines an env file takes: `SNAPSHOT_SIGNING_KEY=…` (base64 PKCS #8
 * DER, for the sync) and `SNAPSHOT_PUBLIC_KEY=…` (base64 SPKI DER, for the servers).
 */
export function keyPairLines(): string {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const signing = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  const verifying = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  return `SNAPSHOT_SIGNING_KEY=${signing}\nSNAPSHOT_PUBLIC_KEY=${verifying}\n`;
}

/**
 * The signing key of SNAPSHOT_SIGNING_KEY, or null when it is not set.
 *
 * @throws SigningKeyError when the value is not the base64 of an Ed25519 private key (PKCS #8 DER)
 */
export function readSigningKey(env: NodeJS.ProcessEnv): KeyObject | null {
  const raw = env.SNAPSHOT_SIGNING_KEY?.trim();
  if (!raw) return null;
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.from(raw, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new SigningKeyError('SNAPSHOT_SIGNING_KEY: not a private key; expected the base64 PKCS #8 key that `--keygen` prints');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`SNAPSHOT_SIGNING_KEY: a ${key.asymmetricKeyType} key; expected Ed25519, as \`--keygen\` prints`);
  return key;
}

/** The signature file's bytes for a manifest's bytes: base64 of the Ed25519 signature, with a final newline. */
export function signManifest(manifestBytes: Uint8Array, key: KeyObject): Buffer {
  return Buffer.from(`${sign(null, manifestBytes, key).toString('base64')}\n`);
}
