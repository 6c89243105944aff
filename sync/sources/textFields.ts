/**
 * Which fields of each area are upstream text, and of which kind, and turning them into plain
 * text (text.ts) before the publish gate judges a source. Identifiers, slugs, codes, dates and
 * numbers sent as text are not in the table: they are never shown as prose. `raw` keeps what the
 * upstream sent.
 */

import type { AreaName } from '../format.ts';
import type { AreaBatch, Rejection, SourceData } from '../source.ts';
import { plainText, type TextKind, type TextRejection } from './text.ts';

/**
 * Per area, the text fields as dotted paths and their kind. `name[]` is every item of the list
 * `name`: a list of texts, or of objects whose fields follow.
 */
export const TEXT_FIELDS: Readonly<Record<AreaName, Readonly<Record<string, TextKind>>>> = {
  activities: {
    title: 'name',
    'teaserImage.url': 'url',
    'teaserImage.alternativeText': 'label',
    'supplier.name': 'name',
    'location.title': 'name',
    'type.title': 'name',
    'info.title': 'name',
    'info.teaser': 'teaser',
  },
  locations: { title: 'name' },
  types: { title: 'name' },
  stations: {
    name: 'name',
    'resort.name': 'name',
    'address.name': 'name',
    'address.street': 'label',
    'address.place': 'label',
    'address.website': 'url',
    'info.report': 'report',
    'snow.avalancheRiskUrl': 'url',
    'snow.report': 'report',
    'ski.areaName': 'name',
    'ski.condition': 'label',
    'ski.snowCondition': 'label',
    'ski.valleyRunsCondition': 'label',
    'ski.report': 'report',
    'crosscountry.areaName': 'name',
    'crosscountry.classicCondition': 'label',
    'crosscountry.skatingCondition': 'label',
    'crosscountry.report': 'report',
    'snowboard.snowparks[].name': 'name',
    'snowboard.snowparks[].status': 'label',
    'crosscountry.routes[].title': 'name',
    'crosscountry.routes[].status': 'label',
    'hiking.areaName': 'name',
    'hiking.condition': 'label',
    'hiking.report': 'report',
    'hiking.routes[].title': 'name',
    'hiking.routes[].status': 'label',
    'tobogganing.areaName': 'name',
    'tobogganing.condition': 'label',
    'tobogganing.report': 'report',
    'sledge.condition': 'label',
    'snowshoe.condition': 'label',
    'prices.description': 'teaser',
    'weather.condition': 'label',
    'weather.forecast': 'teaser',
    'weatherForecast[].url': 'url',
    'images[].url': 'url',
    'webcams[].url': 'url',
    'webcams[].sourceUrl': 'url',
    'webcams[].place': 'label',
    'links[].title': 'name',
    'links[].url': 'url',
    'detailLinks[].url': 'url',
  },
  routes: { link: 'url' },
  tours: {
    name: 'name',
    abstract: 'teaser',
    url: 'url',
    startPoint: 'label',
    endPoint: 'label',
    switzerlandMobilityUrl: 'url',
    geodataUrl: 'url',
    providerName: 'name',
    providerUrl: 'url',
    imageUrl: 'url',
    logoUrl: 'url',
  },
  attractions: {
    name: 'name',
    abstract: 'teaser',
    description: 'description',
    url: 'url',
    locality: 'label',
    contactName: 'name',
    contactUrl: 'url',
    neededTime: 'label',
    imageUrl: 'url',
    'images[]': 'url',
  },
};

/** An area's records with their text fields plain, and the records a text rule rejected. */
export interface PlainTextResult<R> {
  /** Kept records: the same object when no text changed, a copy otherwise. */
  records: R[];
  /** Each with the text rule (`text-cap`, `url-scheme`) and the field that broke it. */
  rejected: Rejection[];
  /** Kept records with a text whose double encoding was repaired, and with one whose marks remain. */
  encoding: { repaired: number; damaged: number };
}

/**
 * Turns every text field of {@link TEXT_FIELDS} of an area's records into plain text of its kind.
 * A record with a text over its cap, or a link that is not http(s), is left out. Never mutates
 * its input.
 */
export function plainTextRecords<R extends object>(area: AreaName, records: readonly R[]): PlainTextResult<R> {
  const fields = Object.entries(TEXT_FIELDS[area]);
  const kept: R[] = [];
  const rejected: Rejection[] = [];
  const encoding = { repaired: 0, damaged: 0 };
  for (const record of records) {
    let copy: object = record;
    let failure: { path: string; rejection: TextRejection } | null = null;
    const found = { repaired: false, damaged: false };
    for (const [path, kind] of fields) {
      copy = cleanAt(copy, path.split('.'), kind, (rejection) => (failure ??= { path, rejection }), found) as object;
      if (failure) break;
    }
    if (failure === null) {
      kept.push(copy as R);
      if (found.damaged) encoding.damaged++;
      else if (found.repaired) encoding.repaired++;
    } else {
      const { path, rejection } = failure as { path: string; rejection: TextRejection };
      rejected.push({ id: idOf(record), reason: `${path}: ${rejection.message}`, rule: rejection.rule });
    }
  }
  return { records: kept, rejected, encoding };
}

/**
 * A source's data with every batch's text fields plain; text rejections join the batch's
 * rejections. The counts the upstream declared and sent stay as they were.
 */
export function plainTextData(data: SourceData): SourceData {
  const locales: Record<string, Record<string, AreaBatch<object>>> = {};
  for (const [locale, areas] of Object.entries(data.locales)) {
    const out: Record<string, AreaBatch<object>> = {};
    for (const [area, batch] of Object.entries(areas ?? {}) as [AreaName, AreaBatch<object>][]) {
      const { records, rejected, encoding } = plainTextRecords(area, batch.records);
      out[area] = { ...batch, records, rejected: [...batch.rejected, ...rejected], encoding };
    }
    locales[locale] = out;
  }
  return { ...data, locales: locales as SourceData['locales'] };
}

/** The value with the text at `keys` cleaned: the same object when nothing changed. */
/** What the texts of one record showed of double encoding. */
interface EncodingFound {
  repaired: boolean;
  damaged: boolean;
}

function cleanAt(node: unknown, keys: readonly string[], kind: TextKind, reject: (rejection: TextRejection) => void, found: EncodingFound): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const [first, ...rest] = keys as [string, ...string[]];
  const list = first.endsWith('[]');
  const key = list ? first.slice(0, -2) : first;
  if (!(key in node)) return node;
  const value = (node as Record<string, unknown>)[key];
  const step = (item: unknown) => (rest.length === 0 ? cleanText(item, kind, reject, found) : cleanAt(item, rest, kind, reject, found));
  let next: unknown;
  if (!list) next = step(value);
  else if (!Array.isArray(value)) next = value;
  else {
    const items = value.map(step);
    // A list item with no text left is dropped; a list of texts holds no nulls.
    next = items.some((item, i) => item !== value[i]) ? items.filter((item) => item !== null) : value;
  }
  return next === value ? node : { ...node, [key]: next };
}

function cleanText(value: unknown, kind: TextKind, reject: (rejection: TextRejection) => void, found: EncodingFound): unknown {
  if (typeof value !== 'string') return value;
  const result = plainText(value, kind);
  if (!result.ok) {
    reject(result.rejection);
    return value;
  }
  if (result.encoding) found[result.encoding] = true;
  return result.text === value ? value : result.text;
}

function idOf(record: object): string | null {
  const id = (record as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
