import { describe, expect, it } from 'vitest';
import { KNOWN_BODIES_BUDGET_BYTES, KnownBodies, MAX_KNOWN_BODY_BYTES } from '../../../../server/http/graphql/knownBodies.ts';
import { bodyParams } from '../../../../server/http/graphql/requestParams.ts';

const bodyOf = (query: string, variables?: Record<string, unknown>) => Buffer.from(JSON.stringify({ query, variables }));
const paramsOf = (raw: Buffer) => bodyParams(JSON.parse(raw.toString()));

describe('KnownBodies', () => {
  it('gives back the parameters remembered for the same bytes, frozen all the way down', () => {
    const bodies = new KnownBodies();
    const raw = bodyOf('query Q($q: String!) { attractions(q: $q) { total } }', { q: 's', near: { lat: 46.9, lng: [7.4] } });
    bodies.remember(raw, paramsOf(raw));
    const known = bodies.get(Buffer.from(raw))!;
    expect(known).toEqual(paramsOf(raw));
    expect(Object.isFrozen(known)).toBe(true);
    const variables = known.variables as { near: { lng: number[] } };
    expect(Object.isFrozen(variables.near)).toBe(true);
    expect(Object.isFrozen(variables.near.lng)).toBe(true);
    expect(bodies.get(raw)).toBe(known);
    expect(bodies.bytes).toBe(raw.length);
  });

  it('tells bodies apart by every byte', () => {
    const bodies = new KnownBodies();
    const raw = bodyOf('{ a }', { q: 's' });
    bodies.remember(raw, paramsOf(raw));
    expect(bodies.get(bodyOf('{ a }', { q: 't' }))).toBeUndefined();
    expect(bodies.get(Buffer.from(` ${raw.toString()}`))).toBeUndefined();
  });

  it('keeps a copy of the bytes, not the request buffer it was given', () => {
    const bodies = new KnownBodies();
    const raw = bodyOf('{ a }', { q: 's' });
    const copy = Buffer.from(raw);
    bodies.remember(raw, paramsOf(raw));
    raw.fill(0x20);
    expect(bodies.get(copy)).toEqual(paramsOf(copy));
    expect(bodies.get(raw)).toBeUndefined();
  });

  it('remembers each body once', () => {
    const bodies = new KnownBodies();
    const raw = bodyOf('{ a }');
    bodies.remember(raw, paramsOf(raw));
    const first = bodies.get(raw);
    bodies.remember(raw, paramsOf(raw));
    expect(bodies.get(raw)).toBe(first);
    expect(bodies.bytes).toBe(raw.length);
  });

  it(`does not remember a body of more than ${MAX_KNOWN_BODY_BYTES} bytes`, () => {
    const bodies = new KnownBodies();
    const raw = bodyOf('{ a }', { q: 'x'.repeat(MAX_KNOWN_BODY_BYTES) });
    bodies.remember(raw, paramsOf(raw));
    expect(bodies.get(raw)).toBeUndefined();
    expect(bodies.bytes).toBe(0);
  });

  it('forgets every body once the next would pass the budget, and goes on learning', () => {
    const bodies = new KnownBodies();
    const body = (i: number) => bodyOf('{ a }', { q: `${i}`.padEnd(MAX_KNOWN_BODY_BYTES - 64, '.') });
    let i = 0;
    while (bodies.bytes + body(i).length <= KNOWN_BODIES_BUDGET_BYTES) {
      bodies.remember(body(i), paramsOf(body(i)));
      i++;
    }
    expect(bodies.get(body(0))).toBeDefined();
    bodies.remember(body(i), paramsOf(body(i)));
    expect(bodies.get(body(0))).toBeUndefined();
    expect(bodies.get(body(i))).toBeDefined();
    expect(bodies.bytes).toBe(body(i).length);
  });
});
