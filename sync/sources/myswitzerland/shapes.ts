/**
 * The MySwitzerland Open Data API's record shapes: only what we read. Real records carry many
 * more keys, which are ignored.
 */

// Upstream shapes: only what we read. Real records carry many more keys (event, price,
// availableLanguage, additionalType, ...), which are ignored.

/** Where the real data varies between one object and a list of them; the first object counts. */
export type OneOrMany<T> = T | T[];

export interface UpstreamClassificationValue {
  /** Language-independent code, e.g. `summer`, `2to4hourshalfday`. */
  name?: string;
  /** Label in the requested language, e.g. `Summer`. */
  title?: string;
}

/** One facet of a record. Entries without `name` exist (lists of spoken languages). */
export interface UpstreamClassification {
  name?: string;
  title?: string;
  values?: UpstreamClassificationValue[];
}

export interface UpstreamAddress {
  /** `Contact Address` or `MICE Office`. */
  contactType?: string;
  name?: string;
  addressLocality?: string;
  postalCode?: string | null;
  streetAddress?: string;
  telephone?: string;
  email?: string;
  url?: string;
}

export interface UpstreamGeo {
  latitude?: number;
  longitude?: number;
}

export interface UpstreamImage {
  url?: string;
  name?: string;
  keywords?: string;
}

/** A record of `GET /attractions?expand=true` (schema.org TouristAttraction). */
export interface UpstreamAttraction {
  identifier: string;
  name: string;
  abstract?: string;
  /** Plain text with `striphtml=true`; may contain HTML otherwise. */
  description?: string;
  url?: string;
  geo?: UpstreamGeo;
  address?: OneOrMany<UpstreamAddress>;
  /** Record-level contact, used when `address` has none. */
  telephone?: string;
  email?: string;
  touristType?: string[] | string | null;
  classification?: UpstreamClassification[];
  image?: UpstreamImage[];
  photo?: string | UpstreamImage;
  containedInPlace?: { identifier?: string; url?: string };
  isAccessibleForFree?: boolean;
  /** `"allyear"` or month names, e.g. `{ start: "may", end: "october" }`. */
  recommendedSeason?: 'allyear' | { start?: string; end?: string } | null;
  /** Not seen in real attraction records; read when present. */
  dateModified?: string;
  subjectOf?: { license?: string };
  [key: string]: unknown;
}

/** `specs` of a tour. Units: distance km, duration minutes, heights metres. */
export interface UpstreamTourSpecs {
  /** `summer` or `winter`. */
  season?: string;
  distance?: number;
  duration?: number;
  ascent?: number;
  descent?: number;
  minAltitude?: number;
  maxAltitude?: number;
  roundTrip?: boolean;
  barrierFree?: boolean;
}

/** Set on routes that come from SwitzerlandMobility (SchweizMobil). */
export interface UpstreamSwitzerlandMobility {
  url?: string;
  /** URL of the route's GeoJSON. */
  geodata?: string;
  /** `national`, `regional`, `local` or `handicap`. */
  routeCategory?: string;
  /** National route number (1–9 national, 2 digits regional, 3 digits local). */
  routeNumber?: number | string;
  /** `easy`, `medium` or `difficult` each. */
  requirements?: { technical?: string; endurance?: string };
}

/** The organisation behind a tour; its contact details are in `address`. */
export interface UpstreamProvider {
  name?: string;
  address?: OneOrMany<UpstreamAddress>;
}

/** A record of `GET /tours?expand=true`, as client code of the real API reads it. */
export interface UpstreamTour {
  identifier: string;
  name: string;
  abstract?: string;
  url?: string;
  /** The start point. */
  geo?: UpstreamGeo;
  provider?: OneOrMany<UpstreamProvider>;
  classification?: UpstreamClassification[];
  image?: UpstreamImage[];
  photo?: string | UpstreamImage;
  logo?: string | UpstreamImage;
  specs?: OneOrMany<UpstreamTourSpecs>;
  switzerlandMobility?: UpstreamSwitzerlandMobility;
  /** Places along the route, start first and end last (a round trip ends where it starts). */
  itinerary?: { name?: string }[];
  dateModified?: string;
  [key: string]: unknown;
}

/** One page of a list response. */
export interface UpstreamPage<T = unknown> {
  meta: { page: { size: number; totalElements: number; totalPages: number; number: number } };
  links: Partial<Record<'self' | 'first' | 'last' | 'prev' | 'next', string>>;
  data: T[];
}
