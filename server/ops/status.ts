/**
 * What an operator or a newcomer sees first: `GET /api/status` (JSON) and `GET /` (the same as a
 * small HTML page): the snapshot served (a synced one, or a fixture snapshot with its generation
 * date), per source and locale the item counts, lastSync, expiresAt and staleness, uptime, links to
 * the playground, the schema and the booking docs, and the schema's operations, their Markdown
 * descriptions rendered, with links to the playground, each sample query ready to run.
 */

import { createHash } from 'node:crypto';
import { Kind, parse, type GraphQLSchema } from 'graphql';
import MarkdownIt from 'markdown-it';
import { SOURCE_AREAS, type AreaName, type FixtureOrigin, type SourceName } from '../../sync/format.ts';
import { LOCALES, type Locale } from '../snapshot/locales.ts';
import { API_DOCS_PATH } from '../http/apiDocs.ts';
import type { StatusProvider } from '../http/httpOptions.ts';
import type { SampleQuery } from './sampleQueries.ts';
import type { Store } from '../snapshot/store.ts';
import type { PullStatus } from '../snapshot/pull/snapshotPuller.ts';

/** Where things are; paths on this server. */
export const LINKS = {
  playground: '/api/graphql',
  schema: '/api/schema',
  bookingDocs: API_DOCS_PATH,
  sampleQueries: '/api/schema?format=queries',
  status: '/api/status',
  metrics: '/metrics',
  health: '/healthz',
  readiness: '/readyz',
} as const;

export interface SourceStatus {
  name: SourceName;
  /** Upstream name as served in `meta.source`; the source name when never synced. */
  label: string;
  /** ISO 8601, null when never synced. */
  lastSync: string | null;
  /** ISO 8601; null when never synced, and for fixture data, which does not expire (as the API's `meta.expiresAt`). */
  expiresAt: string | null;
  /**
   * True when never synced, when the last sync failed (old data carried over) or past expiresAt;
   * generated fixture data does not expire.
   */
  stale: boolean;
  /** Why it is stale, or null. */
  staleReason: 'never synced' | 'last sync failed' | 'expired' | null;
  /** When the last sync failed: the one line the sync wrote on why (the rule that refused it, or the error), or null. */
  staleDetail: string | null;
  /** Items per locale and area. */
  counts: Record<Locale, Partial<Record<AreaName, number>>>;
}

export interface OperationStatus {
  /** Query field name, e.g. `activities`. */
  name: string;
  /** The field with its arguments and type, e.g. `activity(id: String!, locale: String = "de-CH"): Activity`. */
  signature: string;
  /** The field's description in the schema, Markdown (CommonMark) as GraphQL descriptions are. */
  description: string;
  samples: { name: string; description: string; playground: string }[];
}

/** Pull mode as the status page shows it. */
export interface PullReport {
  origin: string;
  pollS: number;
  /** Whether manifests must verify with SNAPSHOT_PUBLIC_KEY. */
  signed: boolean;
  /** ISO 8601 time the origin last answered a poll; null before. */
  lastSuccessfulPollAt: string | null;
  /** The version the origin named then. */
  originVersion: string | null;
  lastFailure: { at: string; reason: string; message: string } | null;
}

export interface StatusReport {
  service: string;
  /** False while draining after SIGTERM/SIGINT. */
  ready: boolean;
  snapshot: {
    version: string;
    /** ISO 8601 time the snapshot was written; for a fixture snapshot, the time it was generated for. */
    createdAt: string;
    /** How the fixture generator made it (`npm run fixtures`); null for a synced snapshot. */
    fixture: FixtureOrigin | null;
    /** Whether any source is stale. */
    stale: boolean;
  };
  sources: SourceStatus[];
  /** Pull mode only (SNAPSHOT_URL): where snapshots come from, the last successful poll and the last failure. */
  pull?: PullReport;
  startedAt: string;
  uptimeS: number;
  operations: OperationStatus[];
  links: typeof LINKS;
}

/**
 * Creates the status reporter the HTTP layer serves: given whether the service is ready (false
 * while draining), the report as data and as the HTML page. The operations come from the schema once; the rest is read at each call
 * from the store current then.
 *
 * @param options.samples the sample queries of a store (server/ops/sampleQueries.ts)
 * @param options.startedAtMs when the process started serving, ms since the epoch
 * @param options.pull in pull mode, the puller's state
 */
export function createStatusReporter(options: {
  schema: GraphQLSchema;
  store: () => Store;
  samples: (store: Store) => readonly SampleQuery[];
  startedAtMs: number;
  pull?: () => PullStatus;
}): StatusProvider {
  const fields = Object.values(options.schema.getQueryType()?.getFields() ?? {});
  const samplesByStore = new WeakMap<Store, Map<string, OperationStatus['samples']>>();

  function samplesOf(store: Store): Map<string, OperationStatus['samples']> {
    let byField = samplesByStore.get(store);
    if (byField) return byField;
    byField = new Map();
    for (const sample of options.samples(store)) {
      const link = { name: sample.name, description: sample.description, playground: playgroundLink(sample) };
      for (const field of rootFieldsOf(sample.query)) {
        byField.set(field, [...(byField.get(field) ?? []), link]);
      }
    }
    samplesByStore.set(store, byField);
    return byField;
  }

  const report = (ready: boolean): StatusReport => {
    const store = options.store();
    const nowMs = Date.now();
    const fixture = store.snapshot.manifest.fixture ?? null;
    const sources = (Object.keys(SOURCE_AREAS) as SourceName[]).map((name) => sourceStatus(store, name, fixture === null ? nowMs : null));
    const samples = samplesOf(store);
    return {
      service: 'Swiss tourism content API',
      ready,
      snapshot: {
        version: store.snapshot.version,
        createdAt: store.snapshot.manifest.createdAt,
        fixture,
        stale: sources.some((source) => source.stale),
      },
      sources,
      ...(options.pull && { pull: pullReport(options.pull()) }),
      startedAt: new Date(options.startedAtMs).toISOString(),
      uptimeS: Math.round((nowMs - options.startedAtMs) / 1000),
      operations: fields.map((field) => ({
        name: field.name,
        signature: `${field.name}${field.args.length ? `(${field.args.map(argumentSignature).join(', ')})` : ''}: ${field.type}`,
        description: field.description ?? '',
        samples: samples.get(field.name) ?? [],
      })),
      links: LINKS,
    };
  };
  return { report, page: (ready) => ({ html: renderStatusPage(report(ready)), contentSecurityPolicy: STATUS_PAGE_CSP }) };
}

function pullReport(status: PullStatus): PullReport {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const failure = status.lastFailure;
  return {
    origin: status.origin,
    pollS: status.pollS,
    signed: status.signed,
    lastSuccessfulPollAt: iso(status.lastSuccessMs),
    originVersion: status.originVersion,
    lastFailure: failure && { at: iso(failure.atMs)!, reason: failure.reason, message: failure.message },
  };
}

/** @param nowMs the time expiresAt is judged against; null when the data does not expire (fixture data). */
function sourceStatus(store: Store, name: SourceName, nowMs: number | null): SourceStatus {
  const entry = store.source(name);
  const counts = {} as SourceStatus['counts'];
  for (const locale of LOCALES) {
    counts[locale] = {};
    for (const area of SOURCE_AREAS[name]) counts[locale][area] = store.locales[locale][area].records.length;
  }
  const staleReason = !entry
    ? 'never synced'
    : entry.stale
      ? 'last sync failed'
      : nowMs !== null && nowMs > Date.parse(entry.expiresAt)
        ? 'expired'
        : null;
  return {
    name,
    label: entry?.label ?? name,
    lastSync: entry?.lastSync ?? null,
    expiresAt: nowMs === null ? null : (entry?.expiresAt ?? null),
    stale: staleReason !== null,
    staleReason,
    staleDetail: staleReason === 'last sync failed' ? (entry?.staleReason ?? null) : null,
    counts,
  };
}

function argumentSignature(arg: { name: string; type: unknown; defaultValue: unknown }): string {
  return `${arg.name}: ${arg.type}${arg.defaultValue === undefined ? '' : ` = ${JSON.stringify(arg.defaultValue)}`}`;
}

function rootFieldsOf(query: string): string[] {
  const fields: string[] = [];
  for (const definition of parse(query).definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const selection of definition.selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection.name.value);
    }
  }
  return fields;
}

/**
 * A link that opens the playground with a query and its variables in the editor. They travel in
 * the fragment, which the browser keeps to itself: the playground page stays one cacheable URL.
 */
export function playgroundLink(sample: Pick<SampleQuery, 'query' | 'variables'>): string {
  const params = new URLSearchParams({ query: sample.query });
  if (Object.keys(sample.variables).length > 0) params.set('variables', JSON.stringify(sample.variables, null, 2));
  return `${LINKS.playground}#${params}`;
}

const PAGE_STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 64rem; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #d2d2d7; padding: 0.25rem 0.6rem; text-align: left; }
td.count { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 0.9em; }
.stale { color: #b00020; font-weight: 600; }
.fresh { color: #1b7f3b; }
.muted { color: #6e6e73; }
li { margin-bottom: 0.6rem; }
li p { margin: 0.2rem 0; }
`;

/** The `Content-Security-Policy` of the status page: its one style block, nothing else. */
export const STATUS_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * The links at the top of the page, in order. Add a page here to link it; each must be a path of
 * this server.
 */
const PAGE_LINKS: readonly { label: string; href: string }[] = [
  { label: 'Playground', href: LINKS.playground },
  { label: 'Schema (SDL)', href: LINKS.schema },
  { label: 'Sample queries (JSON)', href: LINKS.sampleQueries },
  { label: 'Booking API docs', href: LINKS.bookingDocs },
  { label: 'Status (JSON)', href: LINKS.status },
  { label: 'Metrics', href: LINKS.metrics },
  { label: 'Map', href: '/map' },
];

/*
 * GraphQL descriptions are CommonMark. Raw HTML in them is escaped (html: false), and markdown-it
 * refuses javascript:, vbscript:, file: and non-image data: links, so a description can only
 * ever add text, emphasis, code and links to the page.
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** Renders a report as an HTML page without scripts (send it with {@link STATUS_PAGE_CSP}). */
export function renderStatusPage(report: StatusReport): string {
  const sources = report.sources
    .map((source) => {
      const areas = SOURCE_AREAS[source.name];
      const rows = LOCALES.map(
        (locale) =>
          `<tr><th scope="row">${locale}</th>${areas
            .map(
              (area) =>
                `<td class="count" data-source="${source.name}" data-locale="${locale}" data-area="${area}">${formatCount(source.counts[locale][area] ?? 0)}</td>`,
            )
            .join('')}</tr>`,
      ).join('\n');
      const state = source.stale
        ? `<span class="stale">stale: ${escapeHtml(source.staleReason ?? '')}</span>${source.staleDetail ? ` <span class="muted">(${escapeHtml(source.staleDetail)})</span>` : ''}`
        : report.snapshot.fixture
          ? '<span class="fresh">fixture data, does not expire</span>'
          : '<span class="fresh">fresh</span>';
      return `<section data-source="${source.name}">
<h3>${escapeHtml(source.label)} <span class="muted">(${source.name})</span></h3>
<p>Last sync: ${escapeHtml(source.lastSync ?? 'never')} · expires: ${escapeHtml(source.expiresAt ?? '—')} · ${state}</p>
<table><thead><tr><th>Locale</th>${areas.map((area) => `<th>${area}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody></table>
</section>`;
    })
    .join('\n');

  const operations = report.operations
    .map((operation) => {
      const samples = operation.samples
        .map((sample) => `<a href="${escapeHtml(sample.playground)}" title="${escapeHtml(sample.description)}">${escapeHtml(sample.name)}</a>`)
        .join(', ');
      return `<li data-operation="${operation.name}"><code>${escapeHtml(operation.signature)}</code>
${markdown.render(operation.description)}${samples ? `<p>Try it: ${samples}</p>` : ''}</li>`;
    })
    .join('\n');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Status · ${escapeHtml(report.service)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(report.service)}</h1>
<p>${snapshotLine(report.snapshot)} ·
${report.ready ? 'ready' : '<span class="stale">draining</span>'} · up ${formatDuration(report.uptimeS)} since ${escapeHtml(report.startedAt)}</p>
<nav><p>${PAGE_LINKS.map((link) => `<a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a>`).join(' ·\n')}</p></nav>
${report.pull ? pullSection(report.pull) : ''}<h2>Data</h2>
${sources}
<h2>Operations</h2>
<ul>
${operations}
</ul>
</body>
</html>
`;
}

/** Pull mode: the origin, its last successful poll and its last failure. */
function pullSection(pull: PullReport): string {
  const failure = pull.lastFailure
    ? `<span class="stale">${escapeHtml(pull.lastFailure.at)} (${escapeHtml(pull.lastFailure.reason)}): ${escapeHtml(pull.lastFailure.message)}</span>`
    : 'none';
  return `<h2>Origin</h2>
<section id="pull">
<p>Pulled from <code id="pull-origin">${escapeHtml(pull.origin)}</code> every ${pull.pollS} s${pull.signed ? ', signed manifests only' : ''}</p>
<p>Last successful poll: <span id="pull-last-success">${escapeHtml(pull.lastSuccessfulPollAt ?? 'not yet')}</span>${pull.originVersion ? ` (origin at <code>${escapeHtml(pull.originVersion)}</code>)` : ''}</p>
<p>Last failure: <span id="pull-last-failure">${failure}</span></p>
</section>
`;
}

/** What the snapshot is: synced (and whether any of it is stale), or generated by the fixture generator, and when. */
function snapshotLine(snapshot: StatusReport['snapshot']): string {
  const version = `<code id="snapshot-version">${escapeHtml(snapshot.version)}</code>`;
  const state = snapshot.stale ? '<span class="stale">some data is stale</span>' : '<span class="fresh">all data fresh</span>';
  if (snapshot.fixture === null) return `Snapshot ${version} (written ${escapeHtml(snapshot.createdAt)}) ·\n${state}`;
  const { seed, scale } = snapshot.fixture;
  const generated = `generated ${escapeHtml(snapshot.createdAt)} by <code>npm run fixtures</code>, seed ${seed}, scale ${scale}`;
  return `<span id="snapshot-origin">Fixture snapshot</span> ${version} (${generated}): made-up data, not synced from the upstreams, so it does not expire${
    snapshot.stale ? ` ·\n${state}` : ''
  }`;
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

function formatDuration(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min ${seconds % 60} s`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
