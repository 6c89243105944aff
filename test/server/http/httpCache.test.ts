import { describe, expect, it } from 'vitest';
import { cacheControl, etagOf, matchesIfNoneMatch } from '../../../server/http/httpCache.ts';

const policy = { maxAgeS: 300, staleWhileRevalidateS: 60 };

describe('etagOf', () => {
  it('is a strong tag that changes with the version, the media type, the body and the coding', () => {
    const body = (text: string) => Buffer.from(text);
    const base = etagOf('v1', 'application/json', body('{"data":{}}'), 'identity');
    expect(base).toMatch(/^"[\w-]{8}[0-9a-z]{13}"$/);
    expect(etagOf('v1', 'application/json', body('{"data":{}}'), 'identity')).toBe(base);
    expect(
      new Set([
        base,
        etagOf('v2', 'application/json', body('{"data":{}}'), 'identity'),
        etagOf('v1', 'application/graphql-response+json', body('{"data":{}}'), 'identity'),
        etagOf('v1', 'application/json', body('{"data":{ }}'), 'identity'),
        etagOf('v1', 'application/json', body('{"data":{}}\n'), 'identity'),
      ]).size,
    ).toBe(5);
    expect(etagOf('v1', 'application/json', body('{"data":{}}'), 'br')).toBe(`${base.slice(0, -1)}-br"`);
  });

  it('hashes the bytes of the body alone, wherever they sit in memory', () => {
    const slab = Buffer.from('xx{"data":{}}yy');
    expect(etagOf('v1', 'application/json', slab.subarray(2, 13), 'identity')).toBe(etagOf('v1', 'application/json', Buffer.from('{"data":{}}'), 'identity'));
  });
});

describe('matchesIfNoneMatch', () => {
  it('matches the tag among others, weak or strong, and * for GET and HEAD', () => {
    expect(matchesIfNoneMatch('"abc"', '"abc"', 'GET')).toBe(true);
    expect(matchesIfNoneMatch('"x", W/"abc" ,"y"', '"abc"', 'POST')).toBe(true);
    expect(matchesIfNoneMatch('*', '"abc"', 'GET')).toBe(true);
    expect(matchesIfNoneMatch(' * ', '"abc"', 'HEAD')).toBe(true);
  });

  it('does not match * for any other method', () => {
    expect(matchesIfNoneMatch('*', '"abc"', 'POST')).toBe(false);
    expect(matchesIfNoneMatch('*', '"abc"', undefined)).toBe(false);
  });

  it('does not match another tag, a tag of another coding, or no header', () => {
    expect(matchesIfNoneMatch('"abd"', '"abc"', 'GET')).toBe(false);
    expect(matchesIfNoneMatch('"abc-gzip"', '"abc"', 'GET')).toBe(false);
    expect(matchesIfNoneMatch(undefined, '"abc"', 'GET')).toBe(false);
  });
});

describe('cacheControl', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');

  it('allows shared caches up to the configured max-age', () => {
    expect(cacheControl(policy, now + 86_400_000, now)).toBe('public, max-age=300, stale-while-revalidate=60');
  });

  it('bounds max-age by the time left until the data expires', () => {
    expect(cacheControl(policy, now + 42_900, now)).toBe('public, max-age=42, stale-while-revalidate=60');
  });

  it('gives max-age=0 to expired data', () => {
    expect(cacheControl(policy, now - 1, now)).toBe('public, max-age=0, stale-while-revalidate=60');
  });

  it('uses the configured max-age when the expiry is unknown', () => {
    expect(cacheControl({ maxAgeS: 30, staleWhileRevalidateS: 0 }, null, now)).toBe('public, max-age=30, stale-while-revalidate=0');
  });
});
