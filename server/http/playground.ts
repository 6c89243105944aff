import { createHash } from 'node:crypto';
import { readPackageFile } from './packageFile.ts';

/** A file served with the playground, read once at startup. */
export interface StaticAsset {
  /** The `Content-Type` header value. */
  contentType: string;
  body: Buffer;
}

/** The GraphiQL playground: its page and the assets that page loads, all served by us. */
export interface Playground {
  /** The HTML page; it loads only the assets below and runs no inline script. */
  html: string;
  /** The `Content-Security-Policy` to send with `html`. */
  contentSecurityPolicy: string;
  /**
   * The assets by URL path. Each path holds a hash of the file's content, so a response may be
   * cached for good: a new version of a file gets a new path.
   */
  assets: ReadonlyMap<string, StaticAsset>;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/*
 * GraphiQL injects <style> elements (hence 'unsafe-inline' for styles only) and embeds its fonts
 * and icons as data: URLs. Everything else comes from this server.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Starts GraphiQL in #graphiql; the endpoint and first query come from its data attributes. A
 * link may carry a query and its variables in the fragment (`#query=…&variables=…`, see
 * server/ops/status.ts), which then opens in the editor.
 */
const BOOT_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('graphiql');
  var fetcher = GraphiQL.createFetcher({ url: element.dataset.endpoint });
  var linked = new URLSearchParams(location.hash.slice(1));
  var props = { fetcher: fetcher, defaultQuery: element.dataset.defaultQuery };
  if (linked.has('query')) {
    props.query = linked.get('query');
    props.variables = linked.get('variables') || undefined;
  }
  ReactDOM.createRoot(element).render(React.createElement(GraphiQL, props));
})();
`;

const PAGE_STYLE = `html, body, #graphiql { height: 100%; margin: 0; }
`;

/**
 * Builds the GraphiQL playground for a GraphQL endpoint. React, ReactDOM and GraphiQL come from
 * their UMD bundles: in `playground/` beside the server bundle (`npm run build` copies them into
 * dist/, which runs without node_modules), else in node_modules (resolved from this file, so any
 * working directory will do). Either way the page works offline.
 *
 * @param options.endpoint URL path of the GraphQL endpoint; assets live under `<endpoint>/assets/`
 * @param options.defaultQuery query shown in the editor on a first visit
 * @throws Error when a bundle cannot be read (a missing or changed package)
 */
export function createPlayground(options: { endpoint: string; defaultQuery: string }): Playground {
  const assets = new Map<string, StaticAsset>();
  const add = (name: string, contentType: string, body: Buffer): string => {
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    const path = `${options.endpoint}/assets/${hash}/${name}`;
    assets.set(path, { contentType, body });
    return path;
  };

  const styles = [
    add('graphiql.min.css', CSS, readPackageFile('playground', 'graphiql', 'graphiql.min.css')),
    add('playground.css', CSS, Buffer.from(PAGE_STYLE)),
  ];
  const scripts = [
    add('react.production.min.js', JS, readPackageFile('playground', 'react', 'umd/react.production.min.js')),
    add('react-dom.production.min.js', JS, readPackageFile('playground', 'react-dom', 'umd/react-dom.production.min.js')),
    add('graphiql.min.js', JS, readPackageFile('playground', 'graphiql', 'graphiql.min.js')),
    add('playground.js', JS, Buffer.from(BOOT_SCRIPT)),
  ];

  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · Swiss tourism content API</title>
<link rel="icon" href="data:,">
${styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n')}
</head>
<body>
<div id="graphiql" data-endpoint="${escapeHtml(options.endpoint)}" data-default-query="${escapeHtml(options.defaultQuery)}">Loading GraphiQL…</div>
${scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`).join('\n')}
</body>
</html>
`;

  return { html, contentSecurityPolicy: CONTENT_SECURITY_POLICY, assets };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
