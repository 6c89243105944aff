import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

/** A file served with a page (the playground, the booking docs), read once at startup. */
export interface StaticAsset {
  /** The `Content-Type` header value. */
  contentType: string;
  body: Buffer;
}

/** `Content-Type` of a script. */
export const JS = 'text/javascript; charset=utf-8';
/** `Content-Type` of a style sheet. */
export const CSS = 'text/css; charset=utf-8';

/**
 * Adds a file to `assets` under `<prefix>/<hash>/<name>`, the hash being of its content, so a
 * response may be cached for good: a new version of a file gets a new path.
 *
 * @returns the URL path of the file
 */
export function addAsset(assets: Map<string, StaticAsset>, prefix: string, name: string, contentType: string, body: Buffer): string {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  const path = `${prefix}/${hash}/${name}`;
  assets.set(path, { contentType, body });
  return path;
}

/**
 * Reads a browser bundle of a package: from `<bundledDir>/` beside the server bundle
 * (`npm run build` copies it into dist/, which runs without node_modules), else from the package
 * in node_modules (resolved from this file, so any working directory will do).
 *
 * @param bundledDir the folder of dist/ that `npm run build` copies the file into
 * @throws Error when the file cannot be read (a missing or changed package)
 */
export function readPackageFile(packageName: string, file: string, bundledDir: string): Buffer {
  const bundled = new URL(`${bundledDir}/${basename(file)}`, import.meta.url);
  if (existsSync(bundled)) return readFileSync(bundled);
  // The bundles are not in the packages' "exports", but package.json is.
  const packageJson = createRequire(import.meta.url).resolve(`${packageName}/package.json`);
  return readFileSync(join(dirname(packageJson), file));
}

/**
 * The `Content-Security-Policy` of a page whose every script, style, image and request comes from
 * this server: nothing is loaded from another origin, no form posts and no page frames it.
 * @param allow what the page's library needs beyond that, by directive, e.g.
 *   `{ 'style-src': ["'unsafe-inline'"] }`; each value is added to the directive's `'self'`
 */
export function pageSecurityPolicy(allow: Partial<Record<'script-src' | 'style-src' | 'font-src' | 'img-src' | 'worker-src', readonly string[]>> = {}): string {
  const own = (directive: keyof typeof allow, base: readonly string[]) => [directive, ...base, ...(allow[directive] ?? [])].join(' ');
  return [
    "default-src 'none'",
    own('script-src', ["'self'"]),
    ...(allow['worker-src'] ? [own('worker-src', [])] : []),
    own('style-src', ["'self'"]),
    ...(allow['font-src'] ? [own('font-src', ["'self'"])] : []),
    own('img-src', ["'self'", 'data:']),
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * One of the service's HTML pages: the frame they share around `body` (markup, escaped by the
 * caller), loading the page's style sheets in its head and its scripts after the body, each by
 * the URL path {@link addAsset} gave it.
 */
export function htmlPage(page: { title: string; styles?: readonly string[]; body: string; scripts: readonly string[] }): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.title)} · Swiss tourism content API</title>`,
    '<link rel="icon" href="data:,">',
    ...(page.styles ?? []).map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`),
    '</head>',
    '<body>',
    page.body,
    ...page.scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Escapes text for an HTML element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
