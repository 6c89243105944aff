/**
 * The items of a near-me page: the shared records with their distance from the query location
 * (`distance` on activities, `distance_km` on tours and attractions).
 *
 * Records are frozen and shared, so an item is a small object of a class compiled per area: it
 * holds the record and its own distance, and its prototype has a getter per other field that
 * reads the record's. Executors read an item as they read a record (graphql-js's default resolver
 * and graphql-jit read `item[field]`), server/execution/json/answerWriter.ts writes it from what it kept of the
 * record, and JSON.stringify gets the whole record with the distance (toJSON). The ways tried
 * before cost more:
 * - A copy in one compiled object literal: 0.2 µs and about 300 bytes per 33-field tour, 8 of the
 *   30 KB a near-me request allocated. Items of this class hold two fields: the bench's near-me
 *   tours took 59 instead of 67 µs of CPU per answer (71 instead of 78 at 10x).
 * - A spread (`{ ...record, distance_km }`): about 0.9 µs per 33-field record.
 * - A record as the prototype of a small object holding the distance: V8 gives an object that
 *   becomes a prototype a hidden class of its own, for good. After near-me requests across the
 *   country nearly every record had one, and every query's reads of record fields met hundreds of
 *   classes instead of one: a 100-tour list took 19 % longer to execute and serialise, the
 *   activities list 18 %. Here the prototype is one per area, made once.
 */

/** A near-me item: an object that reads as the record with the distance field set (in km). */
export type WithDistance<R> = (record: R, distanceKm: number) => R;

/**
 * The keys under which an item holds its record and names the one field it replaces (the
 * distance), so that server/execution/json/answerWriter.ts can reuse what it wrote of the record for every other
 * field. Symbols: no answer, JSON.stringify or for…in sees them.
 */
export const COPY_OF = Symbol('copy of');
export const COPY_REPLACES = Symbol('copy replaces');

/**
 * Compiles the item class of an area's records. Its getters are written out with each field's
 * name as a literal, so that every read is a named property load V8 can cache.
 *
 * @param fields the fields every record of the area has: records passed the snapshot's validation
 *   (server/snapshot/validateRecord.ts), which requires each field of the type and refuses any other
 * @param distanceField the field that receives the distance; replaced when among `fields`
 * @throws Error for a field named `__proto__` or `toJSON`, which an item's prototype needs for itself
 */
export function compileWithDistance<R extends object>(fields: readonly string[], distanceField: string): WithDistance<R> {
  for (const field of [...fields, distanceField]) {
    if (field === '__proto__' || field === 'toJSON') throw new Error(`a record field may not be named ${field}`);
  }
  // JSON string literals are JavaScript string literals: any field name is quoted safely, and a
  // computed key makes even "constructor" an ordinary getter.
  const key = JSON.stringify;
  const copied = fields.filter((field) => field !== distanceField);
  const getters = copied.map((field) => `get [${key(field)}]() { return this[COPY_OF][${key(field)}]; }`);
  const plain = [...copied.map((field) => `${key(field)}: record[${key(field)}]`), `${key(distanceField)}: this[${key(distanceField)}]`];
  const body = `class NearItem {
  constructor(record, distanceKm) {
    this[COPY_OF] = record;
    this[${key(distanceField)}] = distanceKm;
  }
  ${getters.join('\n  ')}
  toJSON() {
    const record = this[COPY_OF];
    return { ${plain.join(', ')} };
  }
}
NearItem.prototype[COPY_REPLACES] = ${key(distanceField)};
return (record, distanceKm) => new NearItem(record, distanceKm);`;
  return new Function('COPY_OF', 'COPY_REPLACES', body)(COPY_OF, COPY_REPLACES) as WithDistance<R>;
}
