import { gpx } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import type { TourGeometry } from '../../../../sync/format.ts';
import { writeGpx } from '../../../../server/http/gpx/gpxTrack.ts';

const geometry: TourGeometry = { type: 'MultiLineString', coordinates: [[[7.65, 45.98, 1620], [7.66, 45.99, 1700.5]], [[7.7, 46.01, 2100], [7.71, 46.02, 2150]]] };

function parse(text: string) {
  return new DOMParser().parseFromString(text, 'application/xml');
}

describe('writeGpx', () => {
  it('writes a track that a GPX reader reads back to the same positions, one segment per part', () => {
    const text = writeGpx({ name: 'Höhenweg <Zermatt> & "Täsch"', description: null, url: null, creator: 'test', credit: null, geometry });
    const collection = gpx(parse(text) as unknown as Parameters<typeof gpx>[0]);
    expect(collection.features).toHaveLength(1);
    expect(collection.features[0]!.properties!.name).toBe('Höhenweg <Zermatt> & "Täsch"');
    expect(collection.features[0]!.geometry).toEqual(geometry);
  });

  it('writes the metadata in GPX 1.1 order, with the credit as author and copyright', () => {
    const text = writeGpx({
      name: 'A',
      description: 'B',
      url: 'https://example.org/a?x=1&y=2',
      creator: 'test',
      credit: { attribution: '© Example', license: 'https://creativecommons.org/licenses/by-sa/4.0/' },
      geometry: { type: 'LineString', coordinates: [[7, 46], [7.1, 46.2]] },
    });
    const document = parse(text);
    const metadata = document.getElementsByTagName('metadata')[0]!;
    const names = Array.from({ length: metadata.childNodes.length }, (_, at) => metadata.childNodes[at]!.nodeName);
    expect(names).toEqual(['name', 'desc', 'author', 'copyright', 'link', 'bounds']);
    expect(document.documentElement!.namespaceURI).toBe('http://www.topografix.com/GPX/1/1');
    expect(document.getElementsByTagName('copyright')[0]!.getAttribute('author')).toBe('© Example');
    expect(document.getElementsByTagName('license')[0]!.textContent).toBe('https://creativecommons.org/licenses/by-sa/4.0/');
    expect(document.getElementsByTagName('link')[0]!.getAttribute('href')).toBe('https://example.org/a?x=1&y=2');
    const bounds = document.getElementsByTagName('bounds')[0]!;
    expect(['minlat', 'minlon', 'maxlat', 'maxlon'].map((name) => bounds.getAttribute(name))).toEqual(['46', '7', '46.2', '7.1']);
    expect(document.getElementsByTagName('ele')).toHaveLength(0);
  });

  it('drops characters XML cannot hold rather than writing a document no reader opens', () => {
    const text = writeGpx({ name: 'a\u0001b', description: null, url: null, creator: 'test', credit: null, geometry });
    expect(parse(text).getElementsByTagName('name')[0]!.textContent).toBe('ab');
  });
});
