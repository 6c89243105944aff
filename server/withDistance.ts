/**
 * The items of a near-me page: copies of the shared records with their distance from the query
 * location added (`distance` on activities, `distance_km` on tours and attractions).
 *
 * Each area gets a function compiled from its records' fields that copies them in one object
 * literal. The two obvious ways cost more:
 * - A record as the prototype of a small object holding the distance: V8 gives an object that
 *   becomes a prototype a hidden class of its own, for good. After near-me requests across the
 *   country nearly every record had one, and every query's reads of record fields met hundreds of
 *   classes instead of one: a 100-tour list took 19 % longer to execute and serialise, the
 *   activities list 18 %. Making a record a prototype also costs about 1.3 µs the first time.
 * - A spread (`{ ...record, distance_km }`): about 0.9 µs per 33-field record; the compiled
 *   literal takes 0.2 µs, and its copies share one hidden class.
 */

/** Copies a record with its near-me distance, in km. */
export type WithDistance<R> = (record: R, distanceKm: number) => R;

/**
 * The keys under which a copy holds the record it was made of and the one field it replaced (the
 * distance), so that server/answerWriter.ts can reuse what it wrote of the record for every other
 * field. Symbols: no answer, JSON.stringify or for…in sees them.
 */
export const COPY_OF = Symbol('copy of');
export const COPY_REPLACES = Symbol('copy replaces');

/**
 * Compiles the copier of an area's records.
 *
 * @param fields the fields every record of the area has: records passed the snapshot's validation
 *   (server/validateRecord.ts), which requires each field of the type and refuses any other
 * @param distanceField the field that receives the distance; replaced when among `fields`
 * @throws Error for a field named `__proto__`, which an object literal would take for the prototype
 */
export function compileWithDistance<R extends object>(fields: readonly string[], distanceField: string): WithDistance<R> {
  const properties: string[] = [];
  for (const field of fields) {
    if (field === '__proto__') throw new Error('a record field may not be named __proto__');
    // JSON string literals are JavaScript string literals: any field name is quoted safely.
    if (field !== distanceField) properties.push(`${JSON.stringify(field)}: record[${JSON.stringify(field)}]`);
  }
  properties.push(`${JSON.stringify(distanceField)}: distanceKm`, '[COPY_OF]: record', `[COPY_REPLACES]: ${JSON.stringify(distanceField)}`);
  const body = `return (record, distanceKm) => ({ ${properties.join(', ')} });`;
  return new Function('COPY_OF', 'COPY_REPLACES', body)(COPY_OF, COPY_REPLACES) as WithDistance<R>;
}
