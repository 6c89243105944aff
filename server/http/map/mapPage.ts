/**
 * The map page at `/map`: the snapshot's records as points over an outline of Switzerland, by
 * area and locale, with a search box; a tour clicked is drawn as its line, with its elevation
 * profile charted below the map. Built on Leaflet (https://leafletjs.com/, BSD-2-Clause) and
 * uPlot (https://github.com/leeoniya/uPlot, MIT), served from this server with its outline, so
 * the page loads nothing from elsewhere: no base tiles, no fonts, no images (points are circle
 * markers, drawn as SVG; the chart is a canvas).
 */

import { LOCALES } from '../../snapshot/locales.ts';
import { GEOJSON_AREAS } from '../geojson/areas.ts';
import { GEOJSON_PATH } from '../geojson/geojsonRoute.ts';
import { GRAPHQL_PATH } from '../graphql/route.ts';
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

/** Samples of the elevation profile charted: about one per two pixels of a wide chart. */
const PROFILE_SAMPLES = 400;

/**
 * Draws the outline, then the area's points for the chosen locale and search. A search is sent
 * as the GeoJSON route's `q` on submit and a moment after the last keystroke. `#map` carries the
 * state (`data-state`: loading, ready or error) and the number of points drawn (`data-points`).
 * A tour clicked is fetched as its Feature (`/api/geojson/tours/{id}`) and drawn as its line
 * (`data-route`: its id, `data-route-positions`: the positions drawn), and its elevation profile
 * asked of GraphQL and charted in `#profile` (`data-state`: loading, ready, none when the line has
 * no altitudes, or error; `data-samples`). Labels are set as text, never as HTML: titles come
 * from upstream data.
 */
const BOOT_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('map');
  var form = document.getElementById('controls');
  var status = document.getElementById('status');
  var map = L.map(element, { zoomSnap: 0.25, attributionControl: false });
  var attribution = L.control.attribution({ prefix: false }).addAttribution('Outline: Natural Earth').addTo(map);
  // The credit of the records shown, as their source's terms ask: the collection's own members.
  var credit = null;
  var points = L.layerGroup().addTo(map);
  var route = L.layerGroup().addTo(map);
  var profile = document.getElementById('profile');
  var chart = null;
  var pending = null;
  var typing = null;
  var routeRequest = null;
  var PROFILE_QUERY = 'query MapProfile($id: String!, $locale: String) { tour(id: $id, locale: $locale) { name elevationProfile(samples: ${PROFILE_SAMPLES}) { distanceKm altitudeM } } }';

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

  function showCredit(collection) {
    if (credit !== null) attribution.removeAttribution(credit);
    credit = null;
    if (typeof collection.attribution !== 'string') return;
    // Leaflet takes HTML: the text goes through a text node first.
    var text = document.createElement('span');
    text.textContent = collection.attribution + (typeof collection.license === 'string' ? ' (' + collection.license + ')' : '');
    credit = text.innerHTML;
    attribution.addAttribution(credit);
  }

  function show(state, text) {
    element.dataset.state = state;
    status.textContent = text;
  }

  function showProfile(state, text) {
    profile.dataset.state = state;
    profile.querySelector('.profile-status').textContent = text;
  }

  function clearRoute() {
    if (routeRequest) routeRequest.abort();
    routeRequest = null;
    route.clearLayers();
    delete element.dataset.route;
    delete element.dataset.routePositions;
    if (chart) chart.destroy();
    chart = null;
    profile.dataset.samples = '0';
    showProfile('none', '');
    setProfileShown(false);
  }

  // The chart takes its height from the map's: Leaflet must measure the map again.
  function setProfileShown(shown) {
    if (profile.hidden === !shown) return;
    profile.hidden = !shown;
    map.invalidateSize();
  }

  function countPositions(geometry) {
    if (geometry === null || geometry.type === 'Point') return 0;
    var parts = geometry.type === 'LineString' ? [geometry.coordinates] : geometry.coordinates;
    return parts.reduce(function (sum, part) { return sum + part.length; }, 0);
  }

  function json(response) {
    return response.json().then(function (body) {
      if (!response.ok) throw new Error(body.errors.map(function (error) { return error.message; }).join('; '));
      return body;
    });
  }

  function drawProfile(samples) {
    var box = profile.querySelector('.profile-chart');
    var data = [samples.map(function (sample) { return sample.distanceKm; }), samples.map(function (sample) { return sample.altitudeM; })];
    chart = new uPlot({
      width: box.clientWidth,
      height: 180,
      scales: { x: { time: false } },
      axes: [{ label: 'km' }, { label: 'm' }],
      legend: { show: false },
      cursor: { show: false },
      series: [{}, { label: 'Altitude (m)', stroke: '#7a1020', width: 2, fill: 'rgba(213, 43, 30, 0.15)' }],
    }, data, box);
    profile.dataset.samples = String(samples.length);
  }

  function showRoute(id) {
    clearRoute();
    var locale = form.locale.value;
    var request = (routeRequest = new AbortController());
    setProfileShown(true);
    showProfile('loading', 'Loading the profile…');
    fetch(element.dataset.geojson + '/tours/' + encodeURIComponent(id) + '?' + new URLSearchParams({ locale: locale }), { signal: request.signal })
      .then(json)
      .then(function (feature) {
        if (request !== routeRequest) return;
        var drawnLine = L.geoJSON(feature, {
          style: { color: '#0b4f9c', weight: 4, opacity: 0.9, className: 'map-route' },
          pointToLayer: function (point, latlng) { return L.circleMarker(latlng, { radius: 7, color: '#0b4f9c', className: 'map-route' }); },
          interactive: false,
        }).addTo(route);
        element.dataset.route = String(feature.id);
        element.dataset.routePositions = String(countPositions(feature.geometry));
        if (feature.geometry !== null && feature.geometry.type !== 'Point') map.fitBounds(drawnLine.getBounds(), { padding: [40, 40] });
        var params = new URLSearchParams({ query: PROFILE_QUERY, variables: JSON.stringify({ id: id, locale: locale }) });
        return fetch(element.dataset.graphql + '?' + params, { signal: request.signal, headers: { accept: 'application/json' } })
          .then(json)
          .then(function (answer) {
            if (request !== routeRequest) return;
            if (answer.errors) throw new Error(answer.errors.map(function (error) { return error.message; }).join('; '));
            var tour = answer.data.tour;
            var samples = tour === null ? null : tour.elevationProfile;
            if (samples === null) return showProfile('none', (tour === null ? id : tour.name) + ': no elevation data');
            profile.querySelector('.profile-status').textContent = tour.name;
            drawProfile(samples);
            profile.dataset.state = 'ready';
          });
      })
      .catch(function (error) {
        if (error.name !== 'AbortError') showProfile('error', String(error.message || error));
      });
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
        clearRoute();
        element.dataset.points = '0';
        if (!answer.ok) return show('error', answer.body.errors.map(function (error) { return error.message; }).join('; '));
        L.geoJSON(answer.body, {
          pointToLayer: function (feature, latlng) {
            return L.circleMarker(latlng, { radius: 5, weight: 1, color: '#7a1020', fillColor: '#d52b1e', fillOpacity: 0.8, className: 'map-point' });
          },
          onEachFeature: function (feature, layer) {
            layer.bindTooltip(label(feature.properties));
            if (feature.properties.area === 'tours') layer.on('click', function () { showRoute(feature.properties.id); });
          },
        }).addTo(points);
        var collection = answer.body;
        showCredit(collection);
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
#profile { padding: .25rem 1rem .5rem; border-top: 1px solid #ccc; }
#profile .profile-status { color: #555; }
#profile .profile-chart { height: 180px; }
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

  const styles = [
    add('leaflet.css', CSS, readPackageFile('leaflet', 'dist/leaflet.css', 'map')),
    add('uPlot.min.css', CSS, readPackageFile('uplot', 'dist/uPlot.min.css', 'map')),
    add('map.css', CSS, Buffer.from(PAGE_STYLE)),
  ];
  const scripts = [
    add('leaflet.js', JS, readPackageFile('leaflet', 'dist/leaflet.js', 'map')),
    add('uPlot.iife.min.js', JS, readPackageFile('uplot', 'dist/uPlot.iife.min.js', 'map')),
    add('map.js', JS, Buffer.from(BOOT_SCRIPT)),
  ];
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
<div id="map" data-state="loading" data-points="0" data-geojson="${GEOJSON_PATH}" data-graphql="${GRAPHQL_PATH}" data-outline="${outline}"></div>
<section id="profile" hidden data-state="none" data-samples="0" aria-label="Elevation profile"><div class="profile-status" role="status"></div><div class="profile-chart"></div></section>`,
    scripts,
  });

  return { html, contentSecurityPolicy: CONTENT_SECURITY_POLICY, assets };
}
