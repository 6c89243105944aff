/**
 * A tour's line as a GPX 1.1 document (https://www.topografix.com/GPX/1/1/), the format GPS
 * devices and hiking apps import: one `<trk>` whose `<trkseg>`s are the line's parts, each
 * position a `<trkpt lat lon>` with its `<ele>` when the line has altitudes.
 */

import type { TourGeometry } from '../../../sync/format.ts';
import { lineBounds, lineParts } from '../../search/lineGeometry.ts';

/** The media type of GPX (registered with IANA as application/gpx+xml). */
export const GPX_TYPE = 'application/gpx+xml';

/** The namespace of GPX 1.1, which readers check before reading anything else. */
const GPX_NAMESPACE = 'http://www.topografix.com/GPX/1/1';

/** Whose data a track is, as GPX's `<author>` and `<copyright>` state it. */
export interface GpxCredit {
  /** The words a client shows; the author's name and the copyright holder. */
  attribution: string;
  /** The licence (GPX's `<license>`, a URI: an SPDX identifier or the terms' URL); null when the terms name none. */
  license: string | null;
}

/** What a track is made of. */
export interface GpxTrack {
  /** The track's and the document's name (the tour's). */
  name: string;
  /** A description (the tour's abstract); left out when null. */
  description: string | null;
  /** A page about the track (the tour's `url`); left out when null. */
  url: string | null;
  /** Who made the program writing the file: GPX's required `creator`. */
  creator: string;
  /** Whose data it is: written as the metadata's `<author>` and `<copyright>`; left out when null. */
  credit: GpxCredit | null;
  geometry: TourGeometry;
}

/**
 * Writes the GPX 1.1 document of a track: `<metadata>` (name, desc, author, copyright, link,
 * bounds, in the schema's order), then the track. Text and attributes are escaped, since names
 * come from upstream data.
 * @returns the document, UTF-8, with its XML declaration
 */
export function writeGpx(track: GpxTrack): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<gpx version="1.1" creator="${escapeXml(track.creator)}" xmlns="${GPX_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${GPX_NAMESPACE} ${GPX_NAMESPACE}/gpx.xsd">\n`,
    '<metadata>',
    element('name', track.name),
  ];
  if (track.description !== null) out.push(element('desc', track.description));
  if (track.credit !== null) {
    out.push(`<author>${element('name', track.credit.attribution)}</author>`);
    const license = track.credit.license === null ? '' : element('license', track.credit.license);
    out.push(`<copyright author="${escapeXml(track.credit.attribution)}">${license}</copyright>`);
  }
  if (track.url !== null) out.push(`<link href="${escapeXml(track.url)}"/>`);
  const bounds = lineBounds(track.geometry);
  if (bounds !== null) {
    const [west, south, east, north] = bounds;
    out.push(`<bounds minlat="${south}" minlon="${west}" maxlat="${north}" maxlon="${east}"/>`);
  }
  out.push('</metadata>\n<trk>', element('name', track.name));
  if (track.url !== null) out.push(`<link href="${escapeXml(track.url)}"/>`);
  out.push('\n');
  for (const part of lineParts(track.geometry)) {
    out.push('<trkseg>\n');
    for (const [lng, lat, altitude] of part) {
      out.push(altitude === undefined ? `<trkpt lat="${lat}" lon="${lng}"/>\n` : `<trkpt lat="${lat}" lon="${lng}"><ele>${altitude}</ele></trkpt>\n`);
    }
    out.push('</trkseg>\n');
  }
  out.push('</trk>\n</gpx>\n');
  return out.join('');
}

function element(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe in XML content and in a double-quoted attribute; characters XML 1.0 forbids (controls) are dropped. */
function escapeXml(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);
}
