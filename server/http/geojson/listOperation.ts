/**
 * The GraphQL operation behind an area's GeoJSON: the list query with every argument as a
 * variable, built from the schema, so that the GeoJSON parameters are the list's arguments
 * (whatever the schema adds to the list, the parameters follow) and every check and refusal is
 * the list's own.
 */

import { getNamedType, getNullableType, isListType, isObjectType, type GraphQLArgument, type GraphQLInputType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { documentHash } from '../graphql/documentHash.ts';
import type { GeojsonArea } from './areas.ts';
import { creditSelection } from './credit.ts';

/** The list's paging arguments: the GeoJSON route pages through the list itself. */
const PAGING_ARGUMENTS = new Set(['limit', 'offset']);

/**
 * Records asked for per execution: the smallest of the lists' maximum `limit`s (activities'),
 * so one page size fits every list.
 */
export const PAGE_SIZE = 100;

/** Where a record keeps its position, as the names of its longitude and latitude fields. */
export interface PositionFields {
  readonly lng: string;
  readonly lat: string;
}

/** An area's list operation, ready to run with the variables of a request. */
export interface ListOperation {
  readonly area: GeojsonArea;
  /** The GraphQL document: the list with its arguments as variables, plus `$limit` and `$offset`. */
  readonly query: string;
  /** Lowercase hex sha256 of `query`, which the response cache keeps with an answer for the log. */
  readonly documentHash: string;
  /** The list's arguments a request may give, by name (paging left out). */
  readonly parameters: ReadonlyMap<string, GraphQLInputType>;
  /** The locale a request without `locale` is answered in (the argument's default). */
  readonly defaultLocale: string;
  /** The record's position fields; null when its type has none, so no record can be drawn. */
  readonly position: PositionFields | null;
  /**
   * The URL path and query of the GraphQL GET answering one record (its record query), or null
   * when the schema has no record query for the area.
   */
  recordUrl(id: unknown, locale: string): string | null;
}

/**
 * Builds an area's list operation from the schema.
 * @throws Error when the schema lacks the area's list, its `data` field or its record query (a
 *   schema and areas.ts out of step)
 */
export function createListOperation(schema: GraphQLSchema, area: GeojsonArea): ListOperation {
  const fields = schema.getQueryType()!.getFields();
  const list = fields[area.list];
  if (!list) throw new Error(`GeoJSON area ${area.list}: the schema has no query ${area.list}`);
  const resultType = getNamedType(list.type);
  const dataField = isObjectType(resultType) ? resultType.getFields().data : undefined;
  const recordType = dataField && getNamedType(dataField.type);
  if (!recordType || !isObjectType(recordType)) throw new Error(`GeoJSON area ${area.list}: ${resultType.name} has no list of records in \`data\``);

  const position = positionFields(recordType);
  const args = list.args;
  const variables = args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
  const passed = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  // Whose data it is, as the list's meta says: the collection carries it (featureCollection.ts).
  const metaType = isObjectType(resultType) ? resultType.getFields().meta : undefined;
  const metaFields = metaType && getNamedType(metaType.type);
  const termsSelection = metaFields && isObjectType(metaFields) && 'license' in metaFields.getFields() && 'attribution' in metaFields.getFields() ? ' meta { license attribution }' : '';
  const query = `query Geojson${capitalise(area.list)}(${variables}) { ${area.list}(${passed}) { total hasMore${termsSelection} data { ${featureSelection(area, position, null)} } } }`;
  const parameters = new Map(args.filter((arg) => !PAGING_ARGUMENTS.has(arg.name)).map((arg) => [arg.name, arg.type]));
  const locale = args.find((arg) => arg.name === 'locale');

  return {
    area,
    query,
    documentHash: documentHash(query),
    parameters,
    defaultLocale: typeof locale?.defaultValue === 'string' ? locale.defaultValue : 'de-CH',
    position,
    recordUrl: createRecordUrl(schema, area),
  };
}

/** An area's record query, ready to run with a record's `id` and `locale`. */
export interface RecordOperation {
  readonly area: GeojsonArea;
  /** The GraphQL document: the record query with `$id` and `$locale`. */
  readonly query: string;
  /** Lowercase hex sha256 of `query`, which the response cache keeps with an answer for the log. */
  readonly documentHash: string;
  /** The locale a request without `locale` is answered in (the argument's default). */
  readonly defaultLocale: string;
  readonly position: PositionFields | null;
  /** The GET URL of the record query for a feature's `query` (as {@link ListOperation.recordUrl}). */
  recordUrl(id: unknown, locale: string): string | null;
}

/**
 * Builds an area's record query from the schema: the fields of a feature of the record, its line
 * and bounds when the area has one, what its credit is read from (credit.ts), and `extraSelection`.
 * @returns null for an area without a record query
 * @throws Error when the schema's record query takes no `id`
 */
export function createRecordOperation(schema: GraphQLSchema, area: GeojsonArea, extraSelection = ''): RecordOperation | null {
  if (area.record === undefined) return null;
  const field = schema.getQueryType()!.getFields()[area.record];
  const id = field?.args.find((arg) => arg.name === 'id');
  if (!field || !id) throw new Error(`GeoJSON area ${area.list}: the schema has no query ${area.record}(id:)`);
  const recordType = getNamedType(field.type);
  if (!isObjectType(recordType)) throw new Error(`GeoJSON area ${area.list}: ${area.record} answers no record`);
  const locale = field.args.find((arg) => arg.name === 'locale');
  const position = positionFields(recordType);
  const variables = [`$id: ${id.type.toString()}`, ...(locale ? [`$locale: ${locale.type.toString()}`] : [])].join(', ');
  const passed = ['id: $id', ...(locale ? ['locale: $locale'] : [])].join(', ');
  const selection = `${featureSelection(area, position, extraSelection)} ${creditSelection(recordType)}`.trim();
  const query = `query Geojson${capitalise(area.record)}(${variables}) { ${area.record}(${passed}) { ${selection} } }`;
  return {
    area,
    query,
    documentHash: documentHash(query),
    defaultLocale: typeof locale?.defaultValue === 'string' ? locale.defaultValue : 'de-CH',
    position,
    recordUrl: createRecordUrl(schema, area),
  };
}

/** Where a record type keeps its position: `longitude`/`latitude` or `lng`/`lat`; null when neither. */
function positionFields(recordType: GraphQLObjectType): PositionFields | null {
  const recordFields = recordType.getFields();
  if ('longitude' in recordFields && 'latitude' in recordFields) return { lng: 'longitude', lat: 'latitude' };
  return 'lng' in recordFields && 'lat' in recordFields ? { lng: 'lng', lat: 'lat' } : null;
}

/** A feature's fields of a record: id, title, position, label; with a non-null `lineAnd`, the line, its bounds and that selection. */
function featureSelection(area: GeojsonArea, position: PositionFields | null, lineAnd: string | null): string {
  const positionSelection = position ? `${position.lng} ${position.lat}` : '';
  const line = lineAnd !== null && area.line ? `${area.line.geometry} ${area.line.bounds} ${lineAnd}` : (lineAnd ?? '');
  return `id ${area.titleField} ${positionSelection} ${area.labelSelection} ${line}`.trim();
}

/** The record query's GET URL maker, the document the same for every record of the area. */
function createRecordUrl(schema: GraphQLSchema, area: GeojsonArea): ListOperation['recordUrl'] {
  if (area.record === undefined) return () => null;
  const field = schema.getQueryType()!.getFields()[area.record];
  const id = field?.args.find((arg) => arg.name === 'id');
  if (!field || !id) throw new Error(`GeoJSON area ${area.list}: the schema has no query ${area.record}(id:)`);
  const localeType = argumentType(field.args, 'locale') ?? 'String';
  // Written tight: it is repeated in every feature of the area.
  const document = `query($id:${id.type.toString()},$locale:${localeType}){${area.record}(id:$id,locale:$locale){id ${area.titleField}}}`;
  const prefix = `/api/graphql?query=${encodeURIComponent(document)}&variables=`;
  return (recordId, locale) => prefix + encodeURIComponent(JSON.stringify({ id: recordId, locale }));
}

function argumentType(args: readonly GraphQLArgument[], name: string): string | undefined {
  return args.find((arg) => arg.name === name)?.type.toString();
}

function capitalise(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * A query parameter as the variable of its argument: a list type's value split at commas, each
 * item of a number or boolean type read as one when it reads as one. What does not read is passed
 * on as the text sent, so that GraphQL's coercion refuses it in its own words.
 */
export function parameterValue(type: GraphQLInputType, text: string): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return text.split(',').map((item) => scalarValue(getNamedType(nullable).name, item.trim()));
  return scalarValue(getNamedType(nullable).name, text);
}

function scalarValue(typeName: string, text: string): unknown {
  if (typeName === 'Int' || typeName === 'Float') {
    const number = text.trim() === '' ? Number.NaN : Number(text);
    return Number.isFinite(number) ? number : text;
  }
  if (typeName === 'Boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}
