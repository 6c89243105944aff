/**
 * The optional parts of an STnet `full` station: prices, weather and its forecast, images,
 * webcams, links and detail links. The upstream contract says they may exist and are to be read
 * when present; their field names are assumed in the service's conventions (see shapes.ts and
 * docs/snowdata-mapping.md). A part that is absent is null and not counted, since most stations
 * lack it; a part that is present but unreadable is counted under its path, so a change of its
 * shape shows as drift rather than as a silent null.
 */

import type { SnowdataDetailLink, SnowdataImage, SnowdataLink, SnowdataPriceCategory, SnowdataPrices, SnowdataWeather, SnowdataWeatherForecast, SnowdataWebcam } from '../../format.ts';
import { content, day, decimal, type FieldReader, flag, integer, type Many, text, unit } from '../read.ts';
import type { StnetDetailLink, StnetForecastDay, StnetImage, StnetLink, StnetPrices, StnetTexts, StnetTicket, StnetWeather, StnetWebcam } from './shapes.ts';
import { translate } from './translate.ts';

/** The age groups of a ticket, as the service and the snapshot name them. */
const AGE_GROUPS = ['adult', 'child', 'teenager', 'senior'] as const;
/** The tickets of `prices`, as the service and the snapshot name them. */
const TICKETS = ['dayTicket', 'halfDayTicket', 'weekTicket', 'seasonTicket'] as const;
/** The elevations of a forecast day: mountain and valley. */
const FORECAST_TYPES: ReadonlySet<string> = new Set(['BERG', 'TAL']);
/** The units a temperature may carry; none means degrees Celsius. */
const CELSIUS_UNITS: ReadonlySet<string> = new Set(['°c', 'c']);

/**
 * The ticket prices: each age group's amount as text with two decimals, and the currency from
 * the values' unit (upper case). A ticket whose age groups disagree on the currency is unreadable.
 *
 * @returns null when the station has no `prices`
 */
export function readPrices(raw: StnetPrices | null | undefined, lang: string, r: FieldReader): SnowdataPrices | null {
  if (!section(raw, 'prices', r)) return null;
  const tickets = Object.fromEntries(TICKETS.map((ticket) => [ticket, readTicket(raw[ticket], `prices.${ticket}`, r)])) as Record<(typeof TICKETS)[number], SnowdataPriceCategory | null>;
  return {
    ...tickets,
    halfDayFrom: present(r, 'prices.halfDayFrom', raw.halfDayFrom, timeOfDay),
    familyReduction: present(r, 'prices.familyReduction', raw.familyReduction, flag),
    hourCardsAvailable: present(r, 'prices.hourCardsAvailable', raw.hourCardsAvailable, flag),
    dynamicPrices: present(r, 'prices.dynamicPrices', raw.dynamicPrices, flag),
    description: present(r, 'prices.description', raw.description, (texts) => translate(texts as StnetTexts, lang)),
  };
}

function readTicket(raw: StnetTicket | null | undefined, path: string, r: FieldReader): SnowdataPriceCategory | null {
  if (!section(raw, path, r)) return null;
  const sent = AGE_GROUPS.filter((group) => raw[group] != null);
  if (sent.length === 0) return null;
  const currencies = new Set(sent.map((group) => unit(raw[group])?.toUpperCase() ?? null));
  if (currencies.size > 1) {
    r.miss(path);
    return null;
  }
  const amounts = Object.fromEntries(AGE_GROUPS.map((group) => [group, present(r, `${path}.${group}`, raw[group], amount)])) as Record<(typeof AGE_GROUPS)[number], string | null>;
  return { ...amounts, currency: [...currencies][0] ?? null };
}

/**
 * The current weather: condition and forecast texts in `lang`, temperatures in whole °C.
 *
 * @returns null when the station has no `weather`
 */
export function readWeather(raw: StnetWeather | null | undefined, lang: string, r: FieldReader): SnowdataWeather | null {
  if (!section(raw, 'weather', r)) return null;
  return {
    condition: present(r, 'weather.condition', raw.condition, (texts) => translate(texts as StnetTexts, lang)),
    temperatureResort: present(r, 'weather.temperatureResort', raw.temperatureResort, celsius),
    temperaturePiste: present(r, 'weather.temperaturePiste', raw.temperaturePiste, celsius),
    forecast: present(r, 'weather.forecast', raw.forecast, (texts) => translate(texts as StnetTexts, lang)),
  };
}

/**
 * The forecast days of `weather.forecastArray`, in the order sent. A day without a known
 * elevation (`BERG`, `TAL`) or a readable date is left out and counted.
 *
 * @returns null when the station sends no forecast
 */
export function readWeatherForecast(raw: Many<StnetForecastDay>, r: FieldReader): SnowdataWeatherForecast[] | null {
  const path = 'weather.forecastArray[]';
  return readList(raw, path, r, (item) => {
    const type = text(item.type);
    const date = day(item.date);
    if (type === null || !FORECAST_TYPES.has(type) || date === null) return null;
    return {
      type,
      date,
      temperature: present(r, `${path}.temperature`, item.temperature, celsius),
      iconCode: present(r, `${path}.iconCode`, item.iconCode, (v) => integer(content(v))),
      url: present(r, `${path}.url`, item.url, contentText),
    };
  });
}

/** The images of `imagesArray`; one without a type or URL is left out and counted. Null when none is sent. */
export function readImages(raw: Many<StnetImage>, r: FieldReader): SnowdataImage[] | null {
  const path = 'imagesArray[]';
  return readList(raw, path, r, (item) => {
    const type = text(item.type);
    const href = contentText(item.url);
    if (type === null || href === null) return null;
    return { type, url: href, created: present(r, `${path}.created`, item.created, contentText), updated: present(r, `${path}.updated`, item.updated, contentText) };
  });
}

/** The webcams of `webcamsArray`, place in `lang`; one without a URL is left out and counted. Null when none is sent. */
export function readWebcams(raw: Many<StnetWebcam>, lang: string, r: FieldReader): SnowdataWebcam[] | null {
  const path = 'webcamsArray[]';
  return readList(raw, path, r, (item) => {
    const href = contentText(item.url);
    if (href === null) return null;
    return {
      url: href,
      sourceUrl: present(r, `${path}.sourceUrl`, item.sourceUrl, contentText),
      place: present(r, `${path}.place`, item.place, (texts) => translate(texts as StnetTexts, lang)),
      latitude: present(r, `${path}.latitude`, item.latitude, (v) => decimal(content(v))),
      longitude: present(r, `${path}.longitude`, item.longitude, (v) => decimal(content(v))),
    };
  });
}

/** The links of `linksArray`, title in `lang`; one without a type or URL is left out and counted. Null when none is sent. */
export function readLinks(raw: Many<StnetLink>, lang: string, r: FieldReader): SnowdataLink[] | null {
  const path = 'linksArray[]';
  return readList(raw, path, r, (item) => {
    const type = text(item.type);
    const href = contentText(item.url);
    if (type === null || href === null) return null;
    return { type, title: present(r, `${path}.title`, item.title, (texts) => translate(texts as StnetTexts, lang)), url: href };
  });
}

/** The portal pages of `detailLinksArray`, every language; one without a language or URL is left out and counted. Null when none is sent. */
export function readDetailLinks(raw: Many<StnetDetailLink>, r: FieldReader): SnowdataDetailLink[] | null {
  return readList(raw, 'detailLinksArray[]', r, (item) => {
    const lang = text(item.lang);
    const href = contentText(item.url);
    return lang === null || href === null ? null : { lang, url: href };
  });
}

/** Whether `raw` is a part to read: absent is not (and not counted), anything but an object is counted as unreadable. */
function section<T extends object>(raw: T | null | undefined, path: string, r: FieldReader): raw is T {
  if (raw == null) return false;
  if (typeof raw === 'object' && !Array.isArray(raw)) return true;
  r.miss(path);
  return false;
}

/** `parse(value)` when the upstream sent a value; an unreadable one is counted under `path`, an absent one is not. */
function present<T>(r: FieldReader, path: string, value: unknown, parse: (value: unknown) => T | null): T | null {
  return value == null ? null : r.read(path, value, parse);
}

/**
 * The items of a list the service may send as one object; each item `read` gives null for, and
 * each item that is not an object, is left out and counted under `path`.
 */
function readList<I, O>(raw: Many<I>, path: string, r: FieldReader, read: (item: I) => O | null): O[] | null {
  if (raw == null) return null;
  const out: O[] = [];
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    const value = item !== null && typeof item === 'object' ? read(item) : null;
    if (value === null) r.miss(path);
    else out.push(value);
  }
  return out;
}

/** A price's amount as text with two decimals (the gate judges its range and currency). */
function amount(value: unknown): string | null {
  const n = decimal(content(value));
  return n === null ? null : n.toFixed(2);
}

/** A temperature in whole °C; another unit is unreadable. */
function celsius(value: unknown): number | null {
  const n = decimal(content(value));
  const u = unit(value);
  return n === null || (u !== null && !CELSIUS_UNITS.has(u)) ? null : Math.round(n);
}

/** A time of day, `H:MM` or `HH:MM`, as `HH:MM`. */
function timeOfDay(value: unknown): string | null {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text(content(value)) ?? '');
  return match && Number(match[1]) < 24 && Number(match[2]) < 60 ? `${match[1]!.padStart(2, '0')}:${match[2]}` : null;
}

/** The text of a `{ content }` value: a URL or a timestamp, as sent. */
function contentText(value: unknown): string | null {
  return text(content(value));
}
