/**
 * The records of the snapshot format, one interface per GraphQL object type: every record is
 * stored in the shape the API returns (schema.graphql). `null` marks a value the upstream did not
 * provide. Types only; sync/format.ts re-exports them, and the server reads them from there.
 * A ski-resort station's records are in sync/stationRecords.ts.
 */

import type { Locale } from './locales.ts';

export interface Image {
  url: string;
  alternativeText: string | null;
}
export interface Price {
  amount: string;
  currency: string;
  formatted: string | null;
}
export interface Summary {
  startingPrice: Price | null;
  rankingScoreValue: number;
  popularity: number;
  isActive: boolean;
}
export interface Supplier {
  id: string | null;
  name: string | null;
  slug: string | null;
}
export interface LocationRecord {
  id: string;
  title: string;
  slug: string;
  /** Number of activities of this locale at this location. */
  activityCount: number | null;
}
export interface ActivityTypeRecord {
  id: string;
  title: string;
  slug: string;
}
export interface Info {
  title: string;
  teaser: string | null;
  slug: string;
}
export interface ActivityRecord {
  id: string;
  bookingId: number;
  locale: Locale;
  title: string | null;
  teaserImage: Image | null;
  supplier: Supplier | null;
  location: LocationRecord | null;
  type: ActivityTypeRecord | null;
  info: Info | null;
  summary: Summary;
  isBookable: boolean;
  nextAvailableDate: string | null;
  /** ISO 8601 time of the content API's last update (`updated_at`); null when it sends none or an unreadable one. */
  updatedAt: string | null;
  /** Latitude as text, as the upstream sends it. */
  lat: string | null;
  lng: string | null;
  /** Not in the API: attribute values (e.g. `family`, `indoor`) for the attributeValue filter. */
  attributeValues: string[];
  /**
   * Not in the API: every day the activity is bookable on, from the sync's day (Europe/Zurich) on,
   * ascending and not overlapping. Each entry is a day, `YYYY-MM-DD`, or a run of consecutive days
   * as an ISO 8601 interval, `YYYY-MM-DD/YYYY-MM-DD`, both ends included. The server works out
   * `nextAvailableDate` and `isBookable` from it on the day it answers; the two fields above hold
   * their values on the sync's day.
   */
  availableDates: string[];
}

export interface TourRecord {
  id: string;
  name: string;
  abstract: string | null;
  url: string | null;
  routeType: string | null;
  routeCategory: string | null;
  difficulty: string | null;
  season: string | null;
  latitude: number | null;
  longitude: number | null;
  startPoint: string | null;
  endPoint: string | null;
  /** Kilometres. */
  distance: number | null;
  /** Minutes. */
  duration: number | null;
  ascent: number | null;
  descent: number | null;
  minAltitude: number | null;
  maxAltitude: number | null;
  isRoundtrip: boolean;
  isBarrierFree: boolean;
  switzerlandMobilityRoute: number | null;
  switzerlandMobilityUrl: string | null;
  geodataUrl: string | null;
  providerName: string | null;
  providerEmail: string | null;
  providerPhone: string | null;
  providerUrl: string | null;
  imageUrl: string | null;
  logoUrl: string | null;
  landscapes: string[];
  views: string[];
  origin: string | null;
  lastUpdated: string | null;
  /**
   * The licence the upstream states on this record (`subjectOf.license`): an SPDX id for a Creative
   * Commons licence URL, else the text as stated; null when it states none. Absent in snapshots
   * written before it was kept. Not a field of the API type: the server answers it as `license`.
   */
  upstreamLicense?: string | null;
}

export interface AttractionRecord {
  id: string;
  name: string;
  abstract: string | null;
  description: string | null;
  url: string | null;
  latitude: number | null;
  longitude: number | null;
  locality: string | null;
  postalCode: string | null;
  contactName: string | null;
  contactPhone: string | null;
  contactEmail: string | null;
  contactUrl: string | null;
  touristType: string[];
  seasons: string[];
  sportTypes: string[];
  neededTime: string | null;
  childrenAges: string[];
  difficulty: string | null;
  natureTypes: string[];
  experienceTypes: string[];
  views: string[];
  isAccessibleForFree: boolean;
  isWheelchairAccessible: boolean;
  isIndoor: boolean;
  isOutdoor: boolean;
  suitableFor: string[];
  seasonStart: string | null;
  seasonEnd: string | null;
  imageUrl: string | null;
  images: string[];
  destinationId: string | null;
  lastUpdated: string | null;
  /**
   * The licence the upstream states on this record (`subjectOf.license`): an SPDX id for a Creative
   * Commons licence URL, else the text as stated; null when it states none. Absent in snapshots
   * written before it was kept. Not a field of the API type: the server answers it as `license`.
   */
  upstreamLicense?: string | null;
}
