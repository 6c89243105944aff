import { addAsset, escapeHtml, htmlPage, JS, pageSecurityPolicy, readPackageFile, type StaticAsset } from './staticAssets.ts';

/** URL path of the booking interface's browsable docs; its assets live under `<path>/assets/`. */
export const API_DOCS_PATH = '/v1/docs';

/** The docs page of an OpenAPI document and the assets it loads, all served by us. */
export interface ApiDocs {
  /** The HTML page; it loads only the assets below and the document, and runs no inline script. */
  html: string;
  /** The `Content-Security-Policy` to send with `html`. */
  contentSecurityPolicy: string;
  /** The assets by URL path; each path holds a hash of the file's content, so it may be cached for good. */
  assets: ReadonlyMap<string, StaticAsset>;
}

/** The folder of dist/ that `npm run build` copies Redoc's bundle into. */
const BUNDLED_DIR = 'docs';

/*
 * Redoc styles with styled-components, which injects <style> elements (hence 'unsafe-inline' for
 * styles only), draws its icons as inline SVG or data: URLs, and runs its search index in a
 * worker made from a blob: URL. The document and every script come from this server.
 */
const CONTENT_SECURITY_POLICY = pageSecurityPolicy({ 'worker-src': ['blob:'], 'style-src': ["'unsafe-inline'"], 'font-src': ['data:'] });

/**
 * Redoc's sidebar credits Redocly with a logo it loads from Redocly's CDN. The page asks nothing
 * of another origin: the logo's URL becomes an empty data: URL, whose image fails to load, and
 * Redoc then leaves the logo out and keeps the credit's text.
 */
const CDN_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** Renders the document named by #redoc's data attribute into it. */
const BOOT_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('redoc');
  Redoc.init(element.dataset.document, { expandResponses: '200,201' }, element);
})();
`;

/**
 * Builds the docs page of an OpenAPI document with Redoc's standalone bundle (React included),
 * read once, now, from dist/docs/ or node_modules (see {@link readPackageFile}): the page works
 * offline and requests nothing from another origin.
 *
 * @param options.documentUrl URL path of the OpenAPI document the page renders
 * @throws Error when Redoc's bundle cannot be read, or no longer holds the one URL of another
 *   origin it is known to load (a missing or changed package)
 */
export function createApiDocs(options: { documentUrl: string }): ApiDocs {
  const assets = new Map<string, StaticAsset>();
  const prefix = `${API_DOCS_PATH}/assets`;
  const scripts = [
    addAsset(assets, prefix, 'redoc.standalone.js', JS, readRedoc()),
    addAsset(assets, prefix, 'docs.js', JS, Buffer.from(BOOT_SCRIPT)),
  ];
  const html = htmlPage({
    title: 'Booking interface',
    body: `<div id="redoc" data-document="${escapeHtml(options.documentUrl)}">Loading the booking interface's docs from <a href="${escapeHtml(options.documentUrl)}">${escapeHtml(options.documentUrl)}</a>…</div>`,
    scripts,
  });
  return { html, contentSecurityPolicy: CONTENT_SECURITY_POLICY, assets };
}

/** Redoc's standalone bundle with its CDN logo's URL replaced (see {@link CDN_LOGO_URL}). */
function readRedoc(): Buffer {
  const bundle = readPackageFile('redoc', 'bundles/redoc.standalone.js', BUNDLED_DIR).toString('utf8');
  const quoted = JSON.stringify(CDN_LOGO_URL);
  if (!bundle.includes(quoted)) {
    throw new Error(`redoc.standalone.js no longer loads its logo from ${CDN_LOGO_URL}: check what the new Redoc version loads from other origins and update server/http/apiDocs.ts`);
  }
  return Buffer.from(bundle.replaceAll(quoted, '"data:,"'));
}
