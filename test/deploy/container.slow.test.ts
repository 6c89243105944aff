/**
 * The Docker image, without Docker: no engine runs on our machines, so this test rebuilds the
 * image's contents from the Dockerfile itself and runs them the way a container runs.
 *
 * - Build stage: its COPY lines copy from the build context, as .dockerignore filters it, into
 *   an empty directory, and its RUN lines are replayed there (`npm ci` by linking this
 *   checkout's node_modules, which the same lockfile installed; `npm run build` by taking this
 *   test run's bundle, built from those same inputs by test/helpers/bundleSetup.ts; `mkdir -p`).
 *   A RUN line the test does not know fails it, so the two cannot drift apart.
 * - Runtime stage: an empty root directory gets exactly what its COPY lines bring (with their
 *   --chown), plus what the base image provides: a node binary at the ENTRYPOINT's path (this
 *   test's own, bind-mounted: `bash .ci/run` runs this file once more on the Node.js major the
 *   Dockerfile names) and the shared libraries it links. That root is mounted read-only,
 *   as with `docker run --read-only`; each VOLUME is a writable directory initialised from the
 *   image, as Docker initialises a new volume.
 * - ENTRYPOINT + CMD run with the Dockerfile's ENV, chrooted into that root at its WORKDIR, as
 *   the USER (setuid and setgid, no capabilities, no supplementary groups), as PID 1 of a new
 *   PID namespace, in a new network namespace that has only loopback. Requests and the
 *   HEALTHCHECK command enter those namespaces with nsenter.
 *
 * Needs Linux and root (unshare, nsenter, mount; util-linux) and `ip` (iproute2).
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateUpstreamData, startUpstream } from '../../sync/fixtures/upstream.ts';
import type { Manifest } from '../../sync/format.ts';
import { BUILD_INPUTS, bundleDist } from '../helpers/bundle.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCKERFILE = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const DOCKERIGNORE = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8');
/** The PATH of the distroless base image (Docker's default). */
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

// ---------------------------------------------------------------------------------------------
// Reading the Dockerfile and .dockerignore

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** The Dockerfile's stages, with `${ARG}`s of the global ARGs filled into FROM. */
function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    // Comment lines are dropped, also between the lines of a continued instruction.
    if (/^\s*#/.test(raw)) continue;
    const line = raw.trimEnd();
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    pending += line;
    if (pending.trim() !== '') lines.push(pending.trim().replace(/\s+/g, ' '));
    pending = '';
  }
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const keyword = line.split(' ', 1)[0]!.toUpperCase();
    const args = line.slice(keyword.length).trim();
    if (keyword === 'FROM') {
      const [image, as, name] = args.replace(/\$\{(\w+)\}/g, (_, arg: string) => globalArgs[arg] ?? '').split(' ');
      expect(as === undefined || as.toUpperCase() === 'AS').toBe(true);
      stages.push({ image: image!, name, instructions: [] });
    } else if (stages.length === 0) {
      expect(keyword, 'only ARG comes before the first FROM').toBe('ARG');
      const [arg, value] = args.split('=');
      globalArgs[arg!] = value ?? '';
    } else {
      stages.at(-1)!.instructions.push({ keyword, args });
    }
  }
  return stages;
}

/** `--name=value` flags at the start of `args`, and the rest. */
function flagsOf(args: string): { flags: Record<string, string>; rest: string[] } {
  const words = args.split(' ');
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith('--')) {
    const [name, value] = words.shift()!.slice(2).split('=');
    flags[name!] = value ?? '';
  }
  return { flags, rest: words };
}

/** An exec-form (JSON array) argument list; any other form fails the test. */
function execForm(args: string, what: string): string[] {
  expect(args.startsWith('['), `${what} is in exec form`).toBe(true);
  return JSON.parse(args) as string[];
}

/**
 * Whether .dockerignore lets a context path (relative, `/`-separated) into the build. Knows `*`
 * and literal paths, each possibly negated with `!`; the last matching line wins, and a line
 * matches a path or anything under it.
 */
function inContext(relative: string): boolean {
  let included = true;
  for (const raw of DOCKERIGNORE.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = line.replace(/^!/, '').replace(/\/$/, '');
    if (/[?[\]\\]|\*./.test(pattern) || (pattern.includes('*') && pattern !== '*')) {
      throw new Error(`.dockerignore: this test understands only "*" and literal paths, not "${line}"`);
    }
    if (pattern === '*' || relative === pattern || relative.startsWith(`${pattern}/`)) included = negated;
  }
  return included;
}

// ---------------------------------------------------------------------------------------------
// Building the image's contents

/** Copies a COPY source from the build context, as .dockerignore filters it. */
function copyFromContext(source: string, destination: string): void {
  expect(inContext(source), `.dockerignore lets ${source} into the build context`).toBe(true);
  fs.cpSync(path.join(ROOT, source), destination, {
    recursive: true,
    filter: (file) => inContext(path.relative(ROOT, file).split(path.sep).join('/')),
  });
}

/** Where COPY puts `source`: into `destination` when that names a directory. */
function copyTarget(stageRoot: string, workdir: string, source: string, destination: string, sources: number): string {
  const target = path.posix.resolve(workdir, destination);
  const isDirectory = destination.endsWith('/') || destination === '.' || sources > 1;
  return path.join(stageRoot, isDirectory ? path.posix.join(target, path.posix.basename(source)) : target);
}

function chownRecursive(target: string, uid: number, gid: number): void {
  fs.chownSync(target, uid, gid);
  if (fs.statSync(target).isDirectory()) {
    for (const entry of fs.readdirSync(target)) chownRecursive(path.join(target, entry), uid, gid);
  }
}

/** Replays a build stage into an empty directory; returns that directory (the stage's "/"). */
function buildStage(stage: Stage): string {
  const stageRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'image-build-'));
  let workdir = '/';
  for (const { keyword, args } of stage.instructions) {
    if (keyword === 'WORKDIR') {
      workdir = path.posix.resolve(workdir, args);
      fs.mkdirSync(path.join(stageRoot, workdir), { recursive: true });
    } else if (keyword === 'COPY') {
      const { flags, rest } = flagsOf(args);
      expect(flags.from, 'the build stage copies from the build context only').toBeUndefined();
      const destination = rest.pop()!;
      for (const source of rest) copyFromContext(source, copyTarget(stageRoot, workdir, source, destination, rest.length));
    } else if (keyword === 'RUN') {
      const cwd = path.join(stageRoot, workdir);
      if (/^npm ci\b/.test(args)) {
        // The lockfile is this checkout's, so its node_modules is what npm ci installs.
        expect(fs.existsSync(path.join(cwd, 'package-lock.json')), 'package-lock.json is copied before npm ci').toBe(true);
        fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(cwd, 'node_modules'));
      } else if (args === 'npm run build') {
        // This run's bundle, which `npm run build` made from the build inputs alone: the stage
        // must have copied each of them by now.
        for (const input of BUILD_INPUTS) expect(fs.existsSync(path.join(cwd, input)), `${input} is copied before npm run build`).toBe(true);
        fs.cpSync(bundleDist(), path.join(cwd, 'dist'), { recursive: true });
      } else if (/^mkdir -p \S+$/.test(args)) {
        fs.mkdirSync(path.join(stageRoot, path.posix.resolve(workdir, args.slice('mkdir -p '.length))), { recursive: true });
      } else {
        throw new Error(`the test cannot replay "RUN ${args}" of the build stage; teach it`);
      }
    } else {
      throw new Error(`the test cannot replay "${keyword}" in the build stage; teach it`);
    }
  }
  return stageRoot;
}

/** The runtime stage as the test runs it. */
interface Image {
  /** The root directory: exactly the COPYed files plus the base image's node and libraries. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  uid: number;
  gid: number;
  volumes: string[];
  exposed: number[];
  healthcheck: string[];
  command: string[];
}

/** Assembles the runtime stage's files into an empty directory, after replaying the stages it copies from. */
function assembleImage(stages: Stage[]): Image {
  const runtime = stages.at(-1)!;
  const built = new Map<string, string>();
  for (const stage of stages.slice(0, -1)) built.set(stage.name!, buildStage(stage));

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'image-root-'));
  fs.chmodSync(root, 0o755);
  const image: Image = { root, workdir: '/', env: {}, uid: 0, gid: 0, volumes: [], exposed: [], healthcheck: [], command: [] };
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  for (const { keyword, args } of runtime.instructions) {
    if (keyword === 'WORKDIR') {
      image.workdir = path.posix.resolve(image.workdir, args);
      fs.mkdirSync(path.join(root, image.workdir), { recursive: true, mode: 0o755 });
    } else if (keyword === 'ENV') {
      for (const pair of args.split(' ')) {
        const [name, value] = pair.split('=');
        image.env[name!] = value!;
      }
    } else if (keyword === 'COPY') {
      const { flags, rest } = flagsOf(args);
      const destination = rest.pop()!;
      for (const source of rest) {
        const target = copyTarget(root, image.workdir, source, destination, rest.length);
        if (flags.from === undefined) copyFromContext(source, target);
        else fs.cpSync(path.join(built.get(flags.from)!, source), target, { recursive: true });
        if (flags.chown !== undefined) {
          const [uid, gid] = flags.chown.split(':').map(Number);
          chownRecursive(target, uid!, gid!);
        }
      }
    } else if (keyword === 'VOLUME') {
      image.volumes.push(...execForm(args, 'VOLUME'));
    } else if (keyword === 'USER') {
      expect(args, 'USER is numeric, so that Kubernetes can check runAsNonRoot').toMatch(/^\d+:\d+$/);
      [image.uid, image.gid] = args.split(':').map(Number) as [number, number];
    } else if (keyword === 'EXPOSE') {
      image.exposed.push(...args.split(' ').map((port) => Number.parseInt(port, 10)));
    } else if (keyword === 'HEALTHCHECK') {
      const { rest } = flagsOf(args);
      expect(rest[0]).toBe('CMD');
      image.healthcheck = execForm(rest.slice(1).join(' '), 'HEALTHCHECK CMD');
    } else if (keyword === 'ENTRYPOINT') {
      entrypoint = execForm(args, 'ENTRYPOINT');
    } else if (keyword === 'CMD') {
      cmd = execForm(args, 'CMD');
    } else {
      throw new Error(`the test cannot replay "${keyword}" in the runtime stage; teach it`);
    }
  }
  image.command = [...entrypoint, ...cmd];
  for (const dir of built.values()) fs.rmSync(dir, { recursive: true, force: true });

  // What the base image provides: node at the path the ENTRYPOINT names (bind-mounted at run
  // time), the libraries it links, device nodes to bind, mount points for /proc, and /tmp.
  const node = image.command[0]!;
  expect(path.isAbsolute(node), 'ENTRYPOINT names node by its absolute path').toBe(true);
  fs.mkdirSync(path.join(root, path.dirname(node)), { recursive: true });
  fs.writeFileSync(path.join(root, node), '');
  const ldd = spawnSync('ldd', [process.execPath], { encoding: 'utf8' });
  for (const library of ldd.stdout.match(/\/\S+/g) ?? []) {
    fs.mkdirSync(path.join(root, path.dirname(library)), { recursive: true });
    fs.copyFileSync(fs.realpathSync(library), path.join(root, library));
  }
  fs.mkdirSync(path.join(root, 'dev'));
  for (const device of DEVICES) fs.writeFileSync(path.join(root, 'dev', device), '');
  fs.mkdirSync(path.join(root, 'proc'));
  fs.mkdirSync(path.join(root, 'tmp'), { mode: 0o1777 });
  fs.chmodSync(path.join(root, 'tmp'), 0o1777);
  return image;
}

const DEVICES = ['null', 'zero', 'random', 'urandom'];

// ---------------------------------------------------------------------------------------------
// Running it

/** A process started from the image, as a container. */
interface Container {
  /** The unshare process the test spawned; it exits with the container's status. */
  process: ChildProcess;
  /** The containerised process (PID 1 inside), by its PID outside. */
  pid: number;
  /** Directories backing the volumes, by mount point. */
  volumes: Map<string, string>;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Starts `command` (default: ENTRYPOINT + CMD) from the image as described at the top.
 *
 * @param options.network `none` (own namespace, loopback only) or `host` (for the sync, which
 *   fetches from a loopback upstream the test runs)
 * @param options.mounts extra writable directories by mount point, like `docker run -v`
 */
async function run(
  image: Image,
  options: { env?: Record<string, string>; command?: string[]; network?: 'none' | 'host'; mounts?: Record<string, string> } = {},
): Promise<Container> {
  const volumes = new Map<string, string>();
  for (const volume of image.volumes) {
    // A new volume starts as a copy of the image's directory, owner included.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-volume-'));
    const source = path.join(image.root, volume);
    fs.cpSync(source, dir, { recursive: true });
    const { uid, gid } = fs.statSync(source);
    fs.chownSync(dir, uid, gid);
    volumes.set(volume, dir);
  }
  const mounts = new Map([...volumes, ...Object.entries(options.mounts ?? {})]);
  for (const mountPoint of mounts.keys()) fs.mkdirSync(path.join(image.root, mountPoint), { recursive: true });

  const root = quote(image.root);
  const script = [
    `mount --bind ${root} ${root}`,
    ...[...mounts].map(([mountPoint, dir]) => `mount --bind ${quote(dir)} ${quote(path.join(image.root, mountPoint))}`),
    `mount --bind ${quote(process.execPath)} ${quote(path.join(image.root, image.command[0]!))}`,
    ...DEVICES.map((device) => `mount --bind /dev/${device} ${quote(path.join(image.root, 'dev', device))}`),
    `mount -o remount,bind,ro ${root}`,
    ...(options.network === 'host' ? [] : ['ip link set lo up']),
    `exec unshare --pid --fork --kill-child --mount-proc=/proc --root=${root} --wd=${quote(image.workdir)} --setgid=${image.gid} --setuid=${image.uid} -- "$@"`,
  ].join('\n');
  const namespaces = options.network === 'host' ? ['--mount'] : ['--mount', '--net'];
  const child = spawn('unshare', [...namespaces, '--propagation', 'private', 'sh', '-euc', script, 'sh', ...(options.command ?? image.command)], {
    env: { PATH: IMAGE_PATH, ...image.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (data) => (stdout += data));
  child.stderr!.on('data', (data) => (stderr += data));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  // At the end of the exec chain, the spawned process is the inner unshare; its one child is PID 1.
  let pid: number | undefined;
  for (const deadline = Date.now() + 10_000; pid === undefined && child.exitCode === null && Date.now() < deadline; ) {
    const cmdline = readProc(`${child.pid}/cmdline`);
    const children = readProc(`${child.pid}/task/${child.pid}/children`).trim();
    // (Before that, the shell that mounts runs with the script, and its own children.)
    if (cmdline.startsWith('unshare\0--pid\0') && children !== '') pid = Number(children.split(' ')[0]);
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (pid === undefined) {
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    for (const dir of volumes.values()) fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`the container did not start (exit ${child.exitCode}): ${stderr}`);
  }
  return { process: child, pid, volumes, stdout: () => stdout, stderr: () => stderr, exited };
}

function readProc(file: string): string {
  try {
    return fs.readFileSync(`/proc/${file}`, 'utf8');
  } catch {
    return '';
  }
}

interface Answer {
  status?: number;
  contentType?: string | null;
  text?: string;
  sha256?: string;
  error?: string;
}

/** Sends requests from inside the container's network namespace (the outside cannot reach it). */
function request(container: Container, port: number, requests: { path: string; method?: string; headers?: Record<string, string>; body?: string }[]): Answer[] {
  const client = `
    const { createHash } = await import('node:crypto');
    const answers = [];
    for (const r of JSON.parse(process.argv[1])) {
      try {
        const response = await fetch('http://127.0.0.1:${port}' + r.path, { method: r.method, headers: r.headers, body: r.body });
        const bytes = Buffer.from(await response.arrayBuffer());
        answers.push({ status: response.status, contentType: response.headers.get('content-type'), text: bytes.length < 65536 ? bytes.toString('utf8') : undefined, sha256: createHash('sha256').update(bytes).digest('hex') });
      } catch (error) {
        answers.push({ error: String(error.cause?.code ?? error) });
      }
    }
    process.stdout.write(JSON.stringify(answers));`;
  const result = spawnSync('nsenter', ['--target', String(container.pid), '--net', '--', process.execPath, '--input-type=module', '-e', client, JSON.stringify(requests)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.status !== 0) throw new Error(`nsenter: ${result.stderr}`);
  return JSON.parse(result.stdout) as Answer[];
}

/** Runs a command inside the container (its namespaces, root, working directory and user), as Docker runs a HEALTHCHECK. */
function exec(container: Container, image: Image, command: string[], env: Record<string, string> = {}) {
  return spawnSync(
    'nsenter',
    ['--target', String(container.pid), '--mount', '--net', '--pid', '--root', '--wd', `--setuid=${image.uid}`, `--setgid=${image.gid}`, '--', ...command],
    { env: { PATH: IMAGE_PATH, ...image.env, ...env }, encoding: 'utf8', timeout: 30_000 },
  );
}

async function waitUntilReady(container: Container, port: number): Promise<Answer> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (container.process.exitCode !== null) break;
    try {
      const [answer] = request(container, port, [{ path: '/readyz' }]);
      if (answer!.status === 200) return answer!;
    } catch {
      // The container exited meanwhile, and its network namespace with it: the next turn tells.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the server never got ready:\n${container.stdout()}\n${container.stderr()}`);
}

/** Every file and directory under `dir`, relative, `/`-separated. */
function walk(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = `${prefix}${entry.name}`;
    return entry.isDirectory() ? [`${relative}/`, ...walk(path.join(dir, entry.name), `${relative}/`)] : [relative];
  });
}

// ---------------------------------------------------------------------------------------------

const stages = parseDockerfile(DOCKERFILE);
const isolation = process.platform === 'linux' && process.getuid?.() === 0;

describe('Dockerfile', () => {
  const runtime = stages.at(-1)!;
  const instructions = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

  it('builds on node:24 and runs on distroless Node 24, in two stages', () => {
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatchObject({ image: 'node:24-bookworm', name: 'build' });
    expect(runtime.image).toBe('gcr.io/distroless/nodejs24-debian12:nonroot');
  });

  it('runs node directly as a non-root user, exposes the port it listens on and checks its health without a shell', () => {
    const [user] = instructions('USER');
    expect(user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    const [entrypoint] = instructions('ENTRYPOINT');
    expect(execForm(entrypoint!, 'ENTRYPOINT')).toEqual(['/nodejs/bin/node']);
    expect(execForm(instructions('CMD')[0]!, 'CMD')).toEqual(['dist/server.mjs']);
    const env = instructions('ENV').join(' ');
    expect(env).toContain('PORT=4000');
    expect(instructions('EXPOSE')).toEqual(['4000']);
    const { flags, rest } = flagsOf(instructions('HEALTHCHECK')[0]!);
    expect(Object.keys(flags).sort()).toEqual(['interval', 'retries', 'start-period', 'timeout']);
    const healthcheck = execForm(rest.slice(1).join(' '), 'HEALTHCHECK');
    expect(healthcheck.slice(0, 2)).toEqual(['/nodejs/bin/node', '-e']);
    expect(healthcheck[2]).toContain('/healthz');
  });

  it('keeps node_modules, the git history, tests, benchmarks and local state out of the build context', () => {
    for (const excluded of ['node_modules', 'dist', '.git', '.state', 'test', 'bench', 'bench/data', 'docs', 'deploy', '.github']) {
      expect(inContext(excluded), excluded).toBe(false);
    }
    for (const included of ['package.json', 'package-lock.json', 'tsconfig.json', 'schema.graphql', 'server/main.ts', 'sync/main.ts', 'data/manifest.json']) {
      expect(inContext(included), included).toBe(true);
    }
  });
});

describe.skipIf(!isolation)('the image, run without Docker', () => {
  let image: Image;
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'data/manifest.json'), 'utf8')) as Manifest;

  beforeAll(() => {
    image = assembleImage(stages);
  }, 120_000);

  afterAll(() => {
    if (image) fs.rmSync(image.root, { recursive: true, force: true });
  });

  it('holds the bundle, the snapshot and the state directory, and no node_modules', () => {
    const files = walk(path.join(image.root, image.workdir));
    expect(files.filter((file) => file.startsWith('dist/')).sort()).toEqual([
      'dist/',
      'dist/docs/',
      'dist/docs/redoc.standalone.js',
      'dist/loadWorker.mjs',
      'dist/map/',
      'dist/map/countries-50m.json',
      'dist/map/leaflet.css',
      'dist/map/leaflet.js',
      'dist/map/uPlot.iife.min.js',
      'dist/map/uPlot.min.css',
      'dist/playground/',
      'dist/playground/graphiql.min.css',
      'dist/playground/graphiql.min.js',
      'dist/playground/react-dom.production.min.js',
      'dist/playground/react.production.min.js',
      'dist/schema.graphql',
      'dist/server.mjs',
      'dist/sync.mjs',
    ]);
    expect(files).toContain('data/manifest.json');
    expect(files).toContain('state/');
    expect(walk(image.root).filter((file) => file.includes('node_modules'))).toEqual([]);
    expect(fs.statSync(path.join(image.root, image.env.STATE_DIR!)).uid).toBe(image.uid);
    expect(fs.statSync(path.join(image.root, image.env.DATA_DIR!)).uid).toBe(0);
  });

  it('bundles one copy of graphql, so there is one GraphQLSchema class', () => {
    const bundle = fs.readFileSync(path.join(image.root, image.workdir, 'dist/server.mjs'), 'utf8');
    // graphql's instanceOf check; each copy of graphql in a bundle brings its own.
    expect(bundle.split('from another module or realm').length - 1).toBe(1);
  });

  // WORKERS=1: one process; WORKERS=2: the cluster primary is PID 1 and must pass SIGTERM on.
  describe.each(['1', '2'])('WORKERS=%s', (workers) => {
    let container: Container;
    let port: number;

    beforeAll(async () => {
      port = Number(image.env.PORT);
      container = await run(image, { env: { WORKERS: workers } });
      await waitUntilReady(container, port);
    }, 90_000);

    afterAll(() => {
      if (container?.process.exitCode === null) container.process.kill('SIGKILL');
      for (const dir of container?.volumes.values() ?? []) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('runs as the USER, without capabilities, as PID 1, with no network but loopback', () => {
      const status = readProc(`${container.pid}/status`);
      expect(status).toMatch(new RegExp(`^Uid:\\s+${image.uid}\\s+${image.uid}\\s+${image.uid}\\s+${image.uid}$`, 'm'));
      expect(status).toMatch(new RegExp(`^Gid:\\s+${image.gid}\\s+${image.gid}\\s+${image.gid}\\s+${image.gid}$`, 'm'));
      expect(status).toMatch(/^Groups:\s*$/m);
      expect(status).toMatch(/^CapEff:\s+0+$/m);
      expect(status).toMatch(/^NSpid:\s+\d+\s+1$/m);
      const interfaces = readProc(`${container.pid}/net/dev`)
        .split('\n')
        .slice(2)
        .filter((line) => line.trim() !== '')
        .map((line) => line.split(':')[0]!.trim());
      expect(interfaces).toEqual(['lo']);
      expect(fs.readlinkSync(`/proc/${container.pid}/root`)).toBe(image.root);
      // Workers are children of PID 1, as the same user.
      const children = readProc(`${container.pid}/task/${container.pid}/children`).trim().split(' ').filter(Boolean);
      expect(children).toHaveLength(workers === '1' ? 0 : Number(workers));
      for (const child of children) expect(readProc(`${child}/status`)).toMatch(new RegExp(`^Uid:\\s+${image.uid}\\s`, 'm'));
    });

    it('serves the baked-in snapshot over GraphQL', () => {
      const [ready, answer] = request(container, port, [
        { path: '/readyz' },
        {
          path: '/api/graphql',
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
          body: JSON.stringify({ query: '{ tours(limit: 1) { total data { id } } }' }),
        },
      ]);
      expect(JSON.parse(ready!.text!)).toEqual({ status: 'ready', snapshot: manifest.version });
      expect(answer!.status).toBe(200);
      const body = JSON.parse(answer!.text!) as { data: { tours: { total: number; data: { id: string }[] } }; errors?: unknown };
      expect(body.errors).toBeUndefined();
      expect(body.data.tours.total).toBe(manifest.sources.tours!.locales['de-CH']!.tours!.count);
      expect(body.data.tours.data).toHaveLength(1);
    });

    it('serves schema.graphql and the playground with every asset from dist/', () => {
      const [schema, page] = request(container, port, [{ path: '/api/schema' }, { path: '/api/graphql', headers: { accept: 'text/html' } }]);
      // By digest: the SDL is longer than the text the request helper keeps.
      expect(schema!.sha256).toBe(createHash('sha256').update(fs.readFileSync(path.join(ROOT, 'schema.graphql'))).digest('hex'));
      expect(page!.status).toBe(200);
      const assets = [...page!.text!.matchAll(/(?:src|href)="(\/api\/graphql\/assets\/[^"]+)"/g)].map((match) => match[1]!);
      expect(assets).toHaveLength(6);
      const answers = request(container, port, assets.map((asset) => ({ path: asset })));
      for (const [i, asset] of assets.entries()) {
        expect(answers[i]!.status, asset).toBe(200);
        const bundled = path.join(image.root, image.workdir, 'dist/playground', path.basename(asset));
        if (fs.existsSync(bundled)) expect(answers[i]!.sha256, asset).toBe(createHash('sha256').update(fs.readFileSync(bundled)).digest('hex'));
      }
    });

    it('serves the map page with every asset, and GeoJSON, from dist/', () => {
      const [page, geojson] = request(container, port, [{ path: '/map' }, { path: '/api/geojson/tours?q=zermatt' }]);
      expect(page!.status).toBe(200);
      const assets = [...page!.text!.matchAll(/(?:src|href)="(\/map\/assets\/[^"]+)"|data-outline="(\/map\/assets\/[^"]+)"/g)].map((match) => (match[1] ?? match[2])!);
      expect(assets.map((asset) => path.basename(asset)).sort()).toEqual(['leaflet.css', 'leaflet.js', 'map.css', 'map.js', 'switzerland.geojson', 'uPlot.iife.min.js', 'uPlot.min.css']);
      const answers = request(container, port, assets.map((asset) => ({ path: asset })));
      for (const [i, asset] of assets.entries()) {
        expect(answers[i]!.status, asset).toBe(200);
        const bundled = path.join(image.root, image.workdir, 'dist/map', path.basename(asset));
        if (fs.existsSync(bundled)) expect(answers[i]!.sha256, asset).toBe(createHash('sha256').update(fs.readFileSync(bundled)).digest('hex'));
      }
      expect(geojson!.status).toBe(200);
      expect((JSON.parse(geojson!.text!) as { type: string }).type).toBe('FeatureCollection');
    });

    it("serves the booking docs at /v1/docs with Redoc's bundle from dist/", () => {
      const [page] = request(container, port, [{ path: '/v1/docs', headers: { accept: 'text/html' } }]);
      expect(page!.status).toBe(200);
      expect(page!.text).toContain('<div id="redoc" data-document="/v1/openapi.json">');
      const assets = [...page!.text!.matchAll(/src="(\/v1\/docs\/assets\/[^"]+)"/g)].map((match) => match[1]!);
      expect(assets.map((asset) => path.basename(asset))).toEqual(['redoc.standalone.js', 'docs.js']);
      const [redoc, boot, document] = request(container, port, [...assets.map((asset) => ({ path: asset })), { path: '/v1/openapi.json' }]);
      expect([redoc!.status, boot!.status, document!.status]).toEqual([200, 200, 200]);
      // Served as read from dist/docs/, its CDN logo replaced (server/http/apiDocs.ts).
      const bundled = fs.readFileSync(path.join(image.root, image.workdir, 'dist/docs/redoc.standalone.js'), 'utf8').replaceAll('"https://cdn.redoc.ly/redoc/logo-mini.svg"', '"data:,"');
      expect(redoc!.sha256).toBe(createHash('sha256').update(bundled).digest('hex'));
    });

    it('keeps the booking journal in the STATE_DIR volume', () => {
      const journal = path.join(container.volumes.get(image.env.STATE_DIR!)!, 'booking-journal.jsonl');
      expect(fs.statSync(journal).uid).toBe(image.uid);
    });

    it('passes its HEALTHCHECK, run as written, which fails when nothing answers', () => {
      const healthy = exec(container, image, image.healthcheck);
      expect(healthy.stderr).toBe('');
      expect(healthy.status).toBe(0);
      expect(exec(container, image, image.healthcheck, { PORT: String(port + 1) }).status).toBe(1);
    });

    it('drains and exits 0 on SIGTERM', async () => {
      const startedAt = Date.now();
      process.kill(container.pid, 'SIGTERM');
      const [code, signal] = await container.exited;
      expect({ code, signal, stderr: container.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
      expect(Date.now() - startedAt).toBeLessThan(Number(image.env.SHUTDOWN_GRACE_MS ?? 10_000));
      const messages = container
        .stdout()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages.some((msg) => msg.startsWith('listening'))).toBe(true);
      expect(messages.some((msg) => msg.startsWith('drained'))).toBe(true);
    });
  });

  it('runs the sync CLI from the same image into a mounted data directory', async () => {
    const upstream = await startUpstream(generateUpstreamData(7, 0.05));
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'image-data-'));
    fs.chownSync(data, image.uid, image.gid);
    let container: Container | undefined;
    try {
      container = await run(image, {
        command: [image.command[0]!, 'dist/sync.mjs', '--data-dir', '/data'],
        env: upstream.env,
        network: 'host',
        mounts: { '/data': data },
      });
      const [code] = await container.exited;
      expect(code, container.stderr()).toBe(0);
      const synced = JSON.parse(fs.readFileSync(path.join(data, 'manifest.json'), 'utf8')) as Manifest;
      expect(Object.keys(synced.sources).sort()).toEqual(['activities', 'attractions', 'snowdata', 'tours']);
      expect(synced.sources.tours!.locales['de-CH']!.tours!.count).toBeGreaterThan(0);
    } finally {
      for (const dir of container?.volumes.values() ?? []) fs.rmSync(dir, { recursive: true, force: true });
      await upstream.close();
      fs.rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);
});
