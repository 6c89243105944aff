/**
 * The records of a ski-resort station and its winter routes (the snowdata source), in the shape
 * the API returns (schema.graphql); `null` marks a value the upstream did not provide. Types
 * only; sync/format.ts re-exports them.
 */

export interface SnowdataResort {
  id: number;
  name: string;
  regionId: number | null;
}
export interface SnowdataAddress {
  name: string | null;
  street: string | null;
  place: string | null;
  zip: number | null;
  phone: string | null;
  email: string | null;
  website: string | null;
}
export interface SnowdataLifts {
  cableCar: number | null;
  chairlift: number | null;
  skilift: number | null;
  babyLift: number | null;
}
export interface SnowdataInfo {
  altitude: number | null;
  seasonStart: string | null;
  seasonEnd: string | null;
  totalFacilities: number | null;
  cableCars: number | null;
  chairlifts: number | null;
  skilifts: number | null;
  babyLifts: number | null;
  conveyorBelts: number | null;
  hasShuttlebus: boolean | null;
  report: string | null;
  lifts: SnowdataLifts | null;
}
export interface SnowdataSnow {
  freshSnow: number | null;
  freshSnowPisteTop: number | null;
  depthResort: number | null;
  depthPiste: number | null;
  lastSnowfall: string | null;
  avalancheRiskUrl: string | null;
  report: string | null;
}
export interface SnowdataSki {
  areaName: string | null;
  slopesTotal: number | null;
  slopesLength: number | null;
  slopesOpenLength: number | null;
  valleyRuns: number | null;
  openFacilities: number | null;
  openingTime: string | null;
  closingTime: string | null;
  condition: string | null;
  snowCondition: string | null;
  valleyRunsCondition: string | null;
  report: string | null;
}
export interface SnowdataSnowpark {
  name: string | null;
  type: string | null;
  status: string | null;
  lastUpdated: string | null;
}
export interface SnowdataSnowboard {
  funparkName: string | null;
  snowparksTotal: number | null;
  snowparksOpen: number | null;
  halfpipesOpen: number | null;
  snowtubesOpen: number | null;
  hasArtificialSnow: boolean | null;
  hasFloodlight: boolean | null;
  condition: string | null;
  snowparks: SnowdataSnowpark[] | null;
}
export interface SnowdataMobilityRoute {
  title: string | null;
  status: string | null;
}
export interface SnowdataCrosscountry {
  areaName: string | null;
  phone: string | null;
  classicLength: number | null;
  classicPrepared: number | null;
  skatingLength: number | null;
  skatingPrepared: number | null;
  dogTrailLength: number | null;
  dogTrailOpen: number | null;
  floodlightLength: number | null;
  floodlightTill: string | null;
  classicCondition: string | null;
  skatingCondition: string | null;
  report: string | null;
  routes: SnowdataMobilityRoute[] | null;
}
export interface SnowdataHiking {
  areaName: string | null;
  walkingTrailLength: number | null;
  walkingTrailPrepared: number | null;
  snowshoeTrailsTotal: number | null;
  snowshoeTrailsLength: number | null;
  condition: string | null;
  openingTime: string | null;
  closingTime: string | null;
  report: string | null;
  routes: SnowdataMobilityRoute[] | null;
}
export interface SnowdataTobogganing {
  areaName: string | null;
  tracksTotal: number | null;
  tracksLength: number | null;
  tracksOpen: number | null;
  tracksOpenLength: number | null;
  hasArtificialSnow: boolean | null;
  hasPublicTransport: boolean | null;
  hasRental: boolean | null;
  skillLevel: string | null;
  condition: string | null;
  report: string | null;
}
export interface SnowdataSledge {
  runsTotal: number | null;
  runsLength: number | null;
  runsOpenLength: number | null;
  condition: string | null;
}
export interface SnowdataSnowshoe {
  trailsTotal: number | null;
  trailsLength: number | null;
  trailsOpenLength: number | null;
  condition: string | null;
}
export interface SnowdataPriceCategory {
  adult: string | null;
  child: string | null;
  teenager: string | null;
  senior: string | null;
  currency: string | null;
}
export interface SnowdataPrices {
  dayTicket: SnowdataPriceCategory | null;
  halfDayTicket: SnowdataPriceCategory | null;
  weekTicket: SnowdataPriceCategory | null;
  seasonTicket: SnowdataPriceCategory | null;
  halfDayFrom: string | null;
  familyReduction: boolean | null;
  hourCardsAvailable: boolean | null;
  dynamicPrices: boolean | null;
  description: string | null;
}
export interface SnowdataWeather {
  condition: string | null;
  temperatureResort: number | null;
  temperaturePiste: number | null;
  forecast: string | null;
}
export interface SnowdataWeatherForecast {
  /** BERG (mountain) or TAL (valley). */
  type: string;
  date: string;
  temperature: number | null;
  iconCode: number | null;
  url: string | null;
}
export interface SnowdataImage {
  type: string;
  url: string;
  created: string | null;
  updated: string | null;
}
export interface SnowdataWebcam {
  url: string;
  sourceUrl: string | null;
  place: string | null;
  latitude: number | null;
  longitude: number | null;
}
export interface SnowdataLink {
  type: string;
  title: string | null;
  url: string;
}
export interface SnowdataDetailLink {
  lang: string;
  url: string;
}
export interface StationRecord {
  id: number;
  name: string;
  /** From the first cross-country track, else toboggan run, with both coordinates set. */
  latitude: number | null;
  longitude: number | null;
  resort: SnowdataResort | null;
  address: SnowdataAddress | null;
  info: SnowdataInfo | null;
  snow: SnowdataSnow | null;
  ski: SnowdataSki | null;
  snowboard: SnowdataSnowboard | null;
  crosscountry: SnowdataCrosscountry | null;
  hiking: SnowdataHiking | null;
  tobogganing: SnowdataTobogganing | null;
  /** Derived from tobogganing. */
  sledge: SnowdataSledge | null;
  /** Derived from hiking. */
  snowshoe: SnowdataSnowshoe | null;
  prices: SnowdataPrices | null;
  weather: SnowdataWeather | null;
  weatherForecast: SnowdataWeatherForecast[] | null;
  images: SnowdataImage[] | null;
  webcams: SnowdataWebcam[] | null;
  links: SnowdataLink[] | null;
  detailLinks: SnowdataDetailLink[] | null;
  lastUpdate: string | null;
  /** The upstream record as received. */
  raw: unknown;
}

export interface RouteRecord {
  id: string;
  /** snowshoe, crosscountry, winterhiking or sledging. */
  type: string;
  number: string;
  /** OPEN, CLOSED or NOINFO. */
  status: string | null;
  lastUpdated: string | null;
  link: string | null;
  isStationActive: boolean;
  /**
   * Id of the station operating the route (`StationRecord.id`): the station that reports it, or
   * for a snowshoe route the station its tour starts nearest to. A route joined with a tour keeps it.
   */
  stationId: number;
}
