/**
 * The items of a near-me page: the shared records with their distance from the query location
 * (`distance` on activities, `distance_km` on tours and attractions).
 *
 * Records are frozen and shared, so an item is a small object of a class compiled per area: it
 * holds the record and its own distance, and its prototype has a getter per other field that
 * reads the record's. Executors read an item as they read a record (graphql-js's default resolver
 * and graphql-jit read `item[field]`), server/execution/json/answerWriter.ts writes it from what it kept of the
 * record, and JSON.stringify gets the whole record with the distance (toJSON). An item holds two
 * fields, where a copy of the record (literal or spread) would allocate all of them per item.
 * The record itself is never a prototype: V8 gives an object that becomes one a hidden class of
 * its own for good, and reads of record fields would then meet a class per record instead of
 * one; here the prototype is one per area, made once.
 */

/** A near-me item: an object that reads as the record with the distance field set (in km). */
export type WithDistance<R> = (record: R, distanceKm: number) => R;

/**
 * The keys under which an item holds its record and names the one field it replaces (the
 * distance). Symbols: no answer, JSON.stringify or for…in sees them; the answer writer reads
 * them through {@link nearItemRecord} and {@link nearItemReplaces}.
 */
const RECORD = Symbol('near item record');
const REPLACES = Symbol('near item replaces');

/**
 * The record a near-me item reads as, or undefined for any other object: what
 * server/execution/json/answerWriter.ts wrote of the record serves every field of the item but
 * the one it replaces ({@link nearItemReplaces}).
 */
export function nearItemRecord(value: object): object | undefined {
  return (value as { [RECORD]?: object })[RECORD];
}

/** The field a near-me item replaces (the distance); for an item {@link nearItemRecord} answered. */
export function nearItemReplaces(item: object): string {
  return (item as { [REPLACES]: string })[REPLACES];
}

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
  const getters = copied.map((field) => `get [${key(field)}]() { return this[RECORD][${key(field)}]; }`);
  const plain = [...copied.map((field) => `${key(field)}: record[${key(field)}]`), `${key(distanceField)}: this[${key(distanceField)}]`];
  const body = `class NearItem {
  constructor(record, distanceKm) {
    this[RECORD] = record;
    this[${key(distanceField)}] = distanceKm;
  }
  ${getters.join('\n  ')}
  toJSON() {
    const record = this[RECORD];
    return { ${plain.join(', ')} };
  }
}
NearItem.prototype[REPLACES] = ${key(distanceField)};
return (record, distanceKm) => new NearItem(record, distanceKm);`;
  return new Function('RECORD', 'REPLACES', body)(RECORD, REPLACES) as WithDistance<R>;
}
