/**
 * The peers' packages live in bench/peers/node_modules, installed from bench/peers/package-lock.json
 * on first use, so that the service's own install never brings another GraphQL server.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** bench/peers/, where the peers' package.json, lock file and node_modules are. */
const PEERS_DIR = path.resolve(import.meta.dirname);

/** The lock file npm writes into node_modules at each install: its age tells an install older than the lock file. */
const INSTALLED_LOCK = path.join(PEERS_DIR, 'node_modules', '.package-lock.json');

/** Whether bench/peers/node_modules is missing or older than bench/peers/package-lock.json. */
function peersNeedInstall(): boolean {
  if (!existsSync(INSTALLED_LOCK)) return true;
  return statSync(INSTALLED_LOCK).mtimeMs < statSync(path.join(PEERS_DIR, 'package-lock.json')).mtimeMs;
}

/**
 * Installs the peers' packages with `npm ci --prefix bench/peers` when {@link peersNeedInstall};
 * npm's own output goes to stderr.
 * @returns whether it installed
 * @throws Error naming the command and npm's exit when the install fails (offline, say)
 */
export function installPeers(): boolean {
  if (!peersNeedInstall()) return false;
  const args = ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'];
  try {
    execFileSync('npm', args, { stdio: ['ignore', 2, 2] });
  } catch (cause) {
    throw new Error(`cannot install the benchmark peers: \`npm ${args.join(' ')}\` failed (${(cause as Error).message.split('\n')[0]})`, { cause });
  }
  return true;
}

/**
 * The version of an installed package a peer runs: from bench/peers/node_modules, or from the
 * repository's node_modules for what the service itself depends on (graphql, graphql-http).
 * @throws Error naming the package when neither has it
 */
export function installedVersion(name: string): string {
  for (const dir of [path.join(PEERS_DIR, 'node_modules'), path.resolve(PEERS_DIR, '../../node_modules')]) {
    const manifest = path.join(dir, name, 'package.json');
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  }
  throw new Error(`the benchmark peer package ${name} is installed neither in bench/peers/node_modules nor in node_modules; run \`npm ci --prefix bench/peers\``);
}
