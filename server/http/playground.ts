import { parse, print } from 'graphql';
import { addAsset, CSS, escapeHtml, htmlPage, JS, pageSecurityPolicy, readPackageFile, type StaticAsset } from './staticAssets.ts';

/** A ready-made request the playground opens in a tab of its own (server/ops/sampleQueries.ts makes them). */
export interface PlaygroundSample {
  query: string;
  variables?: Record<string, unknown>;
}

/** The GraphiQL playground: its page and the assets that page loads, all served by us. */
export interface Playground {
  /**
   * The HTML page; it loads only the assets below and runs no inline script. On a first visit it
   * opens one tab per sample, each query pretty-printed, the first one active.
   *
   * @throws GraphQLError when a sample's query does not parse
   */
  html(samples: readonly PlaygroundSample[]): string;
  /** The `Content-Security-Policy` to send with `html`. */
  contentSecurityPolicy: string;
  /**
   * The assets by URL path. Each path holds a hash of the file's content, so a response may be
   * cached for good: a new version of a file gets a new path.
   */
  assets: ReadonlyMap<string, StaticAsset>;
}

/** The folder of dist/ that `npm run build` copies the playground's bundles into. */
const BUNDLED_DIR = 'playground';

/*
 * GraphiQL injects <style> elements (hence 'unsafe-inline' for styles only) and embeds its fonts
 * and icons as data: URLs. Everything else comes from this server.
 */
const CONTENT_SECURITY_POLICY = pageSecurityPolicy({ 'style-src': ["'unsafe-inline'"], 'font-src': ['data:'] });

/**
 * Starts GraphiQL in #graphiql; the endpoint and the tabs of a first visit come from its data
 * attributes. A link may carry a query and its variables in the fragment
 * (`#query=…&variables=…`, see server/ops/status.ts), which then opens in the editor instead.
 * GraphiQL keeps its tabs in localStorage: a later visit finds them as they were left.
 */
const BOOT_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('graphiql');
  var fetcher = GraphiQL.createFetcher({ url: element.dataset.endpoint });
  var linked = new URLSearchParams(location.hash.slice(1));
  var props = { fetcher: fetcher };
  if (linked.has('query')) {
    props.query = linked.get('query');
    props.variables = linked.get('variables') || undefined;
  } else {
    props.defaultTabs = JSON.parse(element.dataset.tabs);
  }
  ReactDOM.createRoot(element).render(React.createElement(GraphiQL, props));
})();
`;

const PAGE_STYLE = `html, body, #graphiql { height: 100%; margin: 0; }
`;

/**
 * Builds the GraphiQL playground for a GraphQL endpoint. React, ReactDOM and GraphiQL come from
 * their UMD bundles (see {@link readPackageFile}), so the page works offline.
 *
 * @param options.endpoint URL path of the GraphQL endpoint; assets live under `<endpoint>/assets/`
 * @throws Error when a bundle cannot be read (a missing or changed package)
 */
export function createPlayground(options: { endpoint: string }): Playground {
  const assets = new Map<string, StaticAsset>();
  const add = (name: string, contentType: string, body: Buffer): string => addAsset(assets, `${options.endpoint}/assets`, name, contentType, body);

  const styles = [
    add('graphiql.min.css', CSS, readPackageFile('graphiql', 'graphiql.min.css', BUNDLED_DIR)),
    add('playground.css', CSS, Buffer.from(PAGE_STYLE)),
  ];
  const scripts = [
    add('react.production.min.js', JS, readPackageFile('react', 'umd/react.production.min.js', BUNDLED_DIR)),
    add('react-dom.production.min.js', JS, readPackageFile('react-dom', 'umd/react-dom.production.min.js', BUNDLED_DIR)),
    add('graphiql.min.js', JS, readPackageFile('graphiql', 'graphiql.min.js', BUNDLED_DIR)),
    add('playground.js', JS, Buffer.from(BOOT_SCRIPT)),
  ];

  const html = (samples: readonly PlaygroundSample[]): string =>
    htmlPage({
      title: 'GraphiQL',
      styles,
      body: `<div id="graphiql" data-endpoint="${escapeHtml(options.endpoint)}" data-tabs="${escapeHtml(JSON.stringify(samples.map(tabOf)))}">Loading GraphiQL…</div>`,
      scripts,
    });

  return { html, contentSecurityPolicy: CONTENT_SECURITY_POLICY, assets };
}

/** A tab as GraphiQL's `defaultTabs` takes it: the query pretty-printed, the variables as JSON text. */
function tabOf(sample: PlaygroundSample): { query: string; variables?: string } {
  const query = print(parse(sample.query));
  const variables = sample.variables ?? {};
  return Object.keys(variables).length > 0 ? { query, variables: JSON.stringify(variables, null, 2) } : { query };
}
