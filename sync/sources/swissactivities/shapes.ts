/**
 * The Swiss Activities content and booking APIs' shapes: only what we read.
 */

/** The content API's locale of a translation (German is the record's own `info`). */
export type ContentLocale = 'en_CH' | 'fr_CH' | 'it_CH';

/** A GraphQL response as the content API sends it. */
export interface GraphQLResponse<TData> {
  data?: TData | null;
  errors?: { message: string; path?: (string | number)[] }[];
}

/** The text of an activity in one language (`ComponentActivityInfo`). */
export interface ContentInfo {
  title: string | null;
  slug: string | null;
  teaser: string | null;
}
/** One non-German language of a content activity (`ComponentActivityTranslation`). */
export interface ContentTranslation {
  /** A {@link ContentLocale}. */
  locale: string;
  info: ContentInfo | null;
  /** The teaser image's alternative text in this language. */
  teaser_image_alt_text: string | null;
}
/** A point (`ComponentLocationLocation`): decimal degrees as text, e.g. "46.686300". */
export interface ContentPoint {
  latitude: string | null;
  longitude: string | null;
}
/** A curated attribute value of an activity (`ActivityAttribute`): German text and its translations. */
export interface ContentAttributeValue {
  id: string;
  /** German text, e.g. `Familienfreundlich`. */
  value: string | null;
  translations: { locale: string; value: string | null }[] | null;
}
/** One activity of the content API: German at the top, the other languages in `translations`. */
export interface ContentActivity {
  /** Numeric id written as a GraphQL ID (a string). */
  id: string;
  info: ContentInfo | null;
  translations: ContentTranslation[] | null;
  teaser_image: { url: string | null; alternativeText: string | null } | null;
  supplier: { id: string | null; name: string | null } | null;
  location: { id: string } | null;
  type: { id: string } | null;
  destination: ContentPoint | null;
  meeting_points: ContentPoint[] | null;
  attribute_values: ContentAttributeValue[] | null;
  updated_at: string | null;
}
/** One non-German language of a location or activity type. */
export interface ContentNamedTranslation {
  locale: string;
  title: string | null;
  slug: string | null;
}
/** An activity location (a place) or an activity type (e.g. paragliding): German title and slug on the record. */
export interface ContentNamed {
  id: string;
  title: string | null;
  slug: string | null;
  translations: ContentNamedTranslation[] | null;
}
/** An activity location (a place) of the content API. */
export type ContentLocation = ContentNamed;
/** An activity type (e.g. paragliding) of the content API. */
export type ContentActivityType = ContentNamed;
/** Everything the content API returned, all pages merged. */
export interface ContentPayload {
  activities: ContentActivity[];
  locations: ContentLocation[];
  types: ContentActivityType[];
}

/** An item of `/activities/summaries` (the fields the adapter reads; the answer has more). */
export interface BookingSummary {
  /** Booking-API id of the activity. */
  activityId: number;
  /** `amount` in francs (a JSON number or numeric text); null when no price is on sale. */
  startingPrice: { amount: number | string; currency: string; formatted?: string | null } | null;
  popularity: number;
  /** Offers on sale; absent means the answer does not say. */
  numOffers?: number | null;
}
/** `/activities/dates`: each date (`YYYY-MM-DD`) with the booking ids bookable on it. */
export type BookingDates = Record<string, number[]>;
/** `/activities/mappings`: booking id (an object key) → content id. */
export interface BookingMappings {
  contentApiIds: Record<string, number>;
}
/** What the booking API returned (one answer per path, for every locale). */
export interface BookingPayload {
  summaries: BookingSummary[];
  dates: BookingDates;
  mappings: BookingMappings;
}
