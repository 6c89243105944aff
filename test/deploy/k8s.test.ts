import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { readConfig } from '../../server/config/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIR = path.join(ROOT, 'deploy/k8s');
const DOCKERFILE = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

interface Probe {
  httpGet: { path: string; port: string | number };
  periodSeconds: number;
  failureThreshold: number;
  timeoutSeconds?: number;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}

interface Container {
  name: string;
  image: string;
  ports: { name: string; containerPort: number }[];
  env: EnvVar[];
  resources: { requests: Record<'cpu' | 'memory', string>; limits: Record<'cpu' | 'memory', string> };
  securityContext: Record<string, unknown> & { capabilities: { drop: string[] } };
  startupProbe: Probe;
  readinessProbe: Probe;
  livenessProbe: Probe;
  lifecycle: { preStop: { sleep: { seconds: number } } };
}

interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: any;
}

/** Every variant: a folder that `kubectl apply -f` takes as it is. */
const VARIANTS = fs
  .readdirSync(DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

function readResources(variant: string): Resource[] {
  const dir = path.join(DIR, variant);
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8')).map((document) => {
        expect(document.errors, file).toEqual([]);
        return document.toJS() as Resource;
      }),
    );
}

/** The kubernetes-models class of an object's apiVersion and kind: `apps/v1` Deployment is `kubernetes-models/apps/v1/Deployment`. */
async function modelOf(resource: Resource): Promise<new (data: unknown) => { validate(): void }> {
  const module = (await import(`kubernetes-models/${resource.apiVersion}/${resource.kind}`)) as Record<string, new (data: unknown) => { validate(): void }>;
  return module[resource.kind]!;
}

/** The Secret an operator with a booking partner creates (docs/deploy.md). */
const PARTNER_SECRET = { BOOKING_MODE: 'proxy', BOOKING_UPSTREAM_URL: 'https://partner.example', BOOKING_API_KEY: 'key' };

/** Bytes of a Kubernetes quantity such as `512Mi`. */
function bytesOf(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity);
  expect(match, quantity).not.toBeNull();
  return Number(match![1]) * 1024 ** { Ki: 1, Mi: 2, Gi: 3 }[match![2] as 'Ki' | 'Mi' | 'Gi'];
}

/** Millicores of a Kubernetes CPU quantity such as `500m` or `2`. */
function millicoresOf(quantity: string): number {
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;
}

it('has the variants docs/deploy.md names, pull mode first', () => {
  expect(VARIANTS).toEqual(['image', 'pull']);
  const doc = fs.readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
  const kubernetes = doc.slice(doc.indexOf('\n## Kubernetes'));
  const mentions = VARIANTS.map((variant) => kubernetes.indexOf(`deploy/k8s/${variant}/`));
  for (const index of mentions) expect(index).toBeGreaterThan(0);
  expect(mentions[1]).toBeLessThan(mentions[0]!);
});

describe.each(VARIANTS)('deploy/k8s/%s', (variant) => {
  const resources = readResources(variant);
  function only(kind: string): Resource {
    const found = resources.filter((resource) => resource.kind === kind);
    expect(found, kind).toHaveLength(1);
    return found[0]!;
  }
  const deployment = only('Deployment');
  const service = only('Service');
  const hpa = only('HorizontalPodAutoscaler');
  const pdb = only('PodDisruptionBudget');
  const configMap = only('ConfigMap') as Resource & { data: Record<string, string> };
  const template = deployment.spec.template as { metadata: { labels: Record<string, string> }; spec: any };
  const container = (template.spec.containers as Container[])[0]!;
  const plainEnv = Object.fromEntries(container.env.filter((v) => v.value !== undefined).map((v) => [v.name, v.value!]));
  /** The pod's environment without a booking partner: the ConfigMap's, then the container's own. */
  const podEnv = { ...configMap.data, ...plainEnv };
  /** With the partner's Secret, which comes after the ConfigMap in envFrom, so its values win. */
  const partnerEnv = { ...configMap.data, ...PARTNER_SECRET, ...plainEnv };

  it('passes the Kubernetes schema check, every object (kubernetes-models)', async () => {
    for (const resource of resources) {
      const Model = await modelOf(resource);
      expect(() => new Model(resource).validate(), `${resource.kind} ${resource.metadata.name}`).not.toThrow();
    }
  });

  it('holds a ConfigMap, a Deployment, a Service, a HorizontalPodAutoscaler and a PodDisruptionBudget, with stable API versions', () => {
    expect(resources.map((r) => `${r.apiVersion} ${r.kind}`).sort()).toEqual([
      'apps/v1 Deployment',
      'autoscaling/v2 HorizontalPodAutoscaler',
      'policy/v1 PodDisruptionBudget',
      'v1 ConfigMap',
      'v1 Service',
    ]);
    for (const resource of resources) expect(resource.metadata.name).toBe('tourism-api');
  });

  it('selects the Deployment\'s pods from the Deployment, the Service and the PodDisruptionBudget', () => {
    const labels = template.metadata.labels;
    for (const selector of [deployment.spec.selector.matchLabels, service.spec.selector, pdb.spec.selector.matchLabels]) {
      expect(Object.keys(selector).length).toBeGreaterThan(0);
      expect(labels).toMatchObject(selector);
    }
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
  });

  it('routes the Service to the port the image exposes and the server listens on', () => {
    const exposed = Number(/^EXPOSE (\d+)$/m.exec(DOCKERFILE)![1]);
    expect(container.ports).toEqual([{ name: 'http', containerPort: exposed }]);
    expect(readConfig(podEnv).port).toBe(exposed);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }]);
  });

  it('gates traffic on /readyz, restarts on /healthz, and gives a 10x snapshot a minute to load', () => {
    for (const probe of [container.startupProbe, container.readinessProbe]) expect(probe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.startupProbe.periodSeconds * container.startupProbe.failureThreshold).toBeGreaterThanOrEqual(60);
    // One slow answer while a reload indexes must not take a replica out of the Service.
    expect(container.readinessProbe.failureThreshold).toBeGreaterThan(1);
  });

  it('rolls out without losing capacity, and keeps replicas through voluntary disruptions', () => {
    expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(pdb.spec.maxUnavailable).toBeLessThan(hpa.spec.minReplicas);
    expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
  });

  it('drains within the termination grace period, after the endpoint is gone', () => {
    const preStopS = container.lifecycle.preStop.sleep.seconds;
    expect(preStopS).toBeGreaterThan(0);
    const { shutdownGraceMs } = readConfig(podEnv);
    expect(template.spec.terminationGracePeriodSeconds).toBeGreaterThan(preStopS + shutdownGraceMs / 1000);
  });

  it('requests and limits CPU and memory, the limit holding every bound of the process with room to spare', () => {
    const { requests, limits } = container.resources;
    expect(millicoresOf(requests.cpu)).toBeLessThanOrEqual(millicoresOf(limits.cpu));
    expect(bytesOf(requests.memory)).toBeLessThanOrEqual(bytesOf(limits.memory));
    const flag = (name: string) => Number(new RegExp(`--${name}=(\\d+)`).exec(plainEnv.NODE_OPTIONS ?? '')?.[1]);
    const MB = 2 ** 20;
    const config = readConfig(podEnv);
    const bounds = {
      // The old space holds the snapshots, indexes, operations and persisted queries.
      oldSpace: flag('max-old-space-size') * MB,
      // Two semi-spaces and the young large-object space, each at most a semi-space.
      youngGeneration: 3 * flag('max-semi-space-size') * MB,
      // Buffers, outside V8's heap.
      caches: config.responseCacheBytes + config.recordCacheBytes,
      // Answers being sent: a few at the largest size, each also compressed.
      answers: 8 * 2 * config.limits.maxResponseBytes,
      // Code, stacks, the allocator's slack and the reading of a new snapshot's files.
      rest: 100 * MB,
    };
    for (const [name, bytes] of Object.entries(bounds)) expect(bytes, name).toBeGreaterThan(0);
    const sum = Object.values(bounds).reduce((a, b) => a + b);
    expect(sum * 1.15).toBeLessThanOrEqual(bytesOf(limits.memory));
  });

  it('runs as the image\'s non-root user on a read-only root file system without privileges', () => {
    const [uid, gid] = /^USER (\d+):(\d+)$/m.exec(DOCKERFILE)!.slice(1).map(Number);
    expect(template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: uid, runAsGroup: gid, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(template.spec.automountServiceAccountToken).toBe(false);
  });

  it('runs one process per pod, with bookings off without a partner and forwarded with one, with settings the server accepts', () => {
    expect(plainEnv.WORKERS).toBe('1');
    expect(container.env.filter((v) => v.valueFrom !== undefined)).toEqual([]);
    expect((container as Container & { envFrom: unknown }).envFrom).toEqual([
      { configMapRef: { name: 'tourism-api' } },
      { secretRef: { name: 'tourism-api-booking', optional: true } },
    ]);
    expect(readConfig(podEnv).booking.mode).toBe('off');
    expect(readConfig(partnerEnv).booking).toMatchObject({ mode: 'proxy', upstreamUrl: PARTNER_SECRET.BOOKING_UPSTREAM_URL });
    // Every variable set is one the server reads (NODE_OPTIONS is Node's own).
    const sources = fs
      .readdirSync(path.join(ROOT, 'server'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => fs.readFileSync(path.join(ROOT, 'server', file), 'utf8'))
      .join('\n');
    const unread = [...container.env.map((v) => v.name), ...Object.keys(configMap.data), ...Object.keys(PARTNER_SECRET)].filter((name) => name !== 'NODE_OPTIONS' && !new RegExp(`\\b${name}\\b`).test(sources));
    expect(unread).toEqual([]);
  });

  if (variant === 'pull') {
    it('pulls signed snapshots from an HTTPS origin into an emptyDir, its DATA_DIR', () => {
      const config = readConfig(podEnv);
      expect(config.pull).toMatchObject({ pollS: Number(configMap.data.SNAPSHOT_POLL_S) });
      expect(config.pull!.origin.protocol).toBe('https:');
      expect(config.pull!.publicKeys).toHaveLength(1);
      const mount = (container as Container & { volumeMounts: { name: string; mountPath: string }[] }).volumeMounts.find((m) => m.mountPath === config.dataDir);
      expect(template.spec.volumes.find((v: { name: string }) => v.name === mount?.name)).toMatchObject({ emptyDir: {} });
    });
  } else {
    it('serves the snapshot baked into the image, pulling nothing', () => {
      expect(readConfig(podEnv).pull).toBeNull();
      expect(readConfig(podEnv).dataDir).toBe('data');
    });
  }
});
