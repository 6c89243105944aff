/**
 * The map page at `/map`: the snapshot's records as points over an outline of Switzerland, by
 * area and locale, with a search box. Built on Leaflet (https://leafletjs.com/, BSD-2-Clause),
 * served from this server with its outline, so the page loads nothing from elsewhere: no base
 * tiles, no fonts, no images (points are circle markers, drawn as SVG).
 */

import { LOCALES } from '../../snapshot/locales.ts';
import { GEOJSON_AREAS } from '../geojson/areas.ts';
import { GEOJSON_PATH } from '../geojson/geojsonRoute.ts';
import { addAsset, CSS, htmlPage, JS, pageSecurityPolicy, readPackageFile, type StaticAsset } from '../staticAssets.ts';
import { readSwissOutline } from './swissOutline.ts';

/** URL path of the map page; its assets live under `/map/assets/`. */
export const MAP_PATH = '/map';

/** The map page and the assets it loads. */
export interface MapPage {
  /** The HTML page; it loads only the assets below and runs no inline script. */
  html: string;
  /** The `Content-Security-Policy` to send with `html`. */
  contentSecurityPolicy: string;
  /** The assets by URL path, each path holding a hash of its content (cacheable for good). */
  assets: ReadonlyMap<string, StaticAsset>;
}

/*
 * Leaflet positions its panes through the CSSOM (element.style), which a style-src without
 * 'unsafe-inline' allows; the page fetches the outline and the GeoJSON from this server only.
 */
const CONTENT_SECURITY_POLICY = pageSecurityPolicy();

/**
 * Draws the outline, then the area's points for the chosen locale and search. A search is sent
 * as the GeoJSON route's `q` on submit and a moment after the last keystroke. `#map` carries the
 * state (`data-state`: loading, ready or error) and the number of points drawn (`data-points`).
 * Labels are set as text, never as HTML: titles come from upstream data.
 */
const BOOT_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('map');
  var form = document.getElementById('controls');
  var status = document.getElementById('status');
  var map = L.map(element, { zoomSnap: 0.25, attributionControl: false });
  L.control.attribution({ prefix: false }).addAttribution('Outline: Natural Earth').addTo(map);
  var points = L.layerGroup().addTo(map);
  var pending = null;
  var typing = null;

  function label(properties) {
    var box = document.createElement('div');
    var title = document.createElement('strong');
    title.textContent = properties.title === null ? properties.id : properties.title;
    box.appendChild(title);
    Object.keys(properties).forEach(function (key) {
      var value = properties[key];
      if (key === 'id' || key === 'title' || key === 'area' || key === 'query' || value === null) return;
      var line = document.createElement('div');
      line.textContent = key + ': ' + (Array.isArray(value) ? value.join(', ') : value);
      box.appendChild(line);
    });
    return box;
  }

  function show(state, text) {
    element.dataset.state = state;
    status.textContent = text;
  }

  function load() {
    var params = new URLSearchParams({ locale: form.locale.value });
    var q = form.q.value.trim();
    if (q !== '') params.set('q', q);
    if (pending) pending.abort();
    var request = (pending = new AbortController());
    show('loading', 'Loading…');
    fetch(element.dataset.geojson + '/' + form.area.value + '?' + params, { signal: request.signal })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(function (answer) {
        if (request !== pending) return;
        points.clearLayers();
        element.dataset.points = '0';
        if (!answer.ok) return show('error', answer.body.errors.map(function (error) { return error.message; }).join('; '));
        L.geoJSON(answer.body, {
          pointToLayer: function (feature, latlng) {
            return L.circleMarker(latlng, { radius: 5, weight: 1, color: '#7a1020', fillColor: '#d52b1e', fillOpacity: 0.8, className: 'map-point' });
          },
          onEachFeature: function (feature, layer) { layer.bindTooltip(label(feature.properties)); },
        }).addTo(points);
        var collection = answer.body;
        element.dataset.points = String(collection.features.length);
        show('ready', collection.features.length + ' of ' + collection.total + ' on the map' + (collection.omitted > 0 ? ' (' + collection.omitted + ' without coordinates)' : ''));
      })
      .catch(function (error) {
        if (error.name !== 'AbortError') show('error', String(error));
      });
  }

  fetch(element.dataset.outline)
    .then(function (response) { return response.json(); })
    .then(function (outline) {
      var layer = L.geoJSON(outline, { style: { color: '#555', weight: 1.5, fillColor: '#f4f1ea', fillOpacity: 1, className: 'map-outline' }, interactive: false }).addTo(map);
      map.fitBounds(layer.getBounds());
      load();
    });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    clearTimeout(typing);
    load();
  });
  form.area.addEventListener('change', load);
  form.locale.addEventListener('change', load);
  form.q.addEventListener('input', function () {
    clearTimeout(typing);
    typing = setTimeout(load, 300);
  });
})();
`;

const PAGE_STYLE = `html, body { height: 100%; margin: 0; font: 14px/1.4 system-ui, sans-serif; }
body { display: flex; flex-direction: column; }
#controls { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid #ccc; }
#controls input[type=search] { min-width: 16rem; }
#status { color: #555; }
#map { flex: 1; background: #cfe3ef; }
`;

/**
 * Builds the map page: Leaflet's script and stylesheet from the leaflet package (in dist/map/
 * beside the bundle, else in node_modules) and Switzerland's outline (server/http/map/swissOutline.ts),
 * read once, now.
 * @throws Error when a package file cannot be read
 */
export function createMapPage(): MapPage {
  const assets = new Map<string, StaticAsset>();
  const add = (name: string, contentType: string, body: Buffer): string => addAsset(assets, `${MAP_PATH}/assets`, name, contentType, body);

  const styles = [add('leaflet.css', CSS, readPackageFile('leaflet', 'dist/leaflet.css', 'map')), add('map.css', CSS, Buffer.from(PAGE_STYLE))];
  const scripts = [add('leaflet.js', JS, readPackageFile('leaflet', 'dist/leaflet.js', 'map')), add('map.js', JS, Buffer.from(BOOT_SCRIPT))];
  const outline = add('switzerland.geojson', 'application/geo+json', Buffer.from(JSON.stringify(readSwissOutline())));
  const option = (value: string) => `<option value="${value}">${value}</option>`;

  const html = htmlPage({
    title: 'Map',
    styles,
    body: `<form id="controls" role="search">
<label>Area <select name="area">${[...GEOJSON_AREAS.keys()].map(option).join('')}</select></label>
<label>Locale <select name="locale">${LOCALES.map(option).join('')}</select></label>
<label>Search <input type="search" name="q" placeholder="e.g. zermatt"></label>
<button type="submit">Search</button>
<span id="status" role="status"></span>
<a href="/">Status</a>
</form>
<div id="map" data-state="loading" data-points="0" data-geojson="${GEOJSON_PATH}" data-outline="${outline}"></div>`,
    scripts,
  });

  return { html, contentSecurityPolicy: CONTENT_SECURITY_POLICY, assets };
}
