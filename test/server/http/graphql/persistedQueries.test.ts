import { describe, expect, it } from 'vitest';
import { createPersistedQueries, ENTRY_OVERHEAD_BYTES, hashQuery, readPersistedQuery, type PersistedQueryRelay } from '../../../../server/http/graphql/persistedQueries.ts';

/** The budget of `n` entries each counted as `queryBytes` of query and the overhead of an entry. */
const entries = (n: number, queryBytes: number) => n * (ENTRY_OVERHEAD_BYTES + queryBytes);

describe('createPersistedQueries', () => {
  it('returns a stored query by its hash, and undefined for an unknown one', () => {
    const queries = createPersistedQueries(entries(2, 20));
    queries.set('a', '{ types { id } }');
    expect(queries.get('a')).toBe('{ types { id } }');
    expect(queries.get('b')).toBeUndefined();
  });

  it('evicts the least recently used queries once their entries pass the budget', () => {
    const queries = createPersistedQueries(entries(3, 10));
    queries.set('a', 'x'.repeat(10));
    queries.set('b', 'y'.repeat(10));
    queries.get('a');
    queries.set('c', 'z'.repeat(15));
    expect([queries.get('a'), queries.get('b'), queries.get('c')]).toEqual(['x'.repeat(10), undefined, 'z'.repeat(15)]);
    expect(queries.bytes).toBe(entries(1, 10) + entries(1, 15));
  });

  it('counts UTF-8 bytes and never stores an entry larger than the whole budget', () => {
    const queries = createPersistedQueries(entries(1, 10));
    queries.set('a', 'Zürich');
    expect(queries.bytes).toBe(entries(1, 7));
    queries.set('b', 'x'.repeat(11));
    expect(queries.get('b')).toBeUndefined();
    expect(queries.get('a')).toBe('Zürich');
  });

  it('counts the overhead of each entry, so tiny queries cannot hold more entries than the budget pays for', () => {
    const queries = createPersistedQueries(entries(10, 1));
    for (let i = 0; i < 100; i++) queries.set(`h${i}`, String(i % 10));
    expect([...queries.entries()].map(([hash]) => hash)).toEqual(Array.from({ length: 10 }, (_, i) => `h${90 + i}`));
  });

  it('stores the empty query too, counted as the overhead of its entry', () => {
    const queries = createPersistedQueries(entries(1, 0));
    expect(queries.set('e', '')).toBe(true);
    expect([queries.get('e'), queries.bytes]).toEqual(['', ENTRY_OVERHEAD_BYTES]);
  });
});

describe('createPersistedQueries with a relay', () => {
  /** Two stores joined as the primary joins the workers of a cluster. */
  function joined() {
    const subscribers: ((hash: string, query: string) => void)[] = [];
    const published: string[] = [];
    const relay = (): PersistedQueryRelay => {
      const own = subscribers.length;
      return {
        publish(hash, query) {
          published.push(hash);
          subscribers.forEach((deliver, index) => index !== own && deliver(hash, query));
        },
        subscribe: (onQuery) => void subscribers.push(onQuery),
      };
    };
    return { one: createPersistedQueries(entries(1, 100), relay()), other: createPersistedQueries(entries(1, 100), relay()), published };
  }

  it('publishes a query newly stored, once, and stores what the other store published', () => {
    const { one, other, published } = joined();
    expect(one.set('a', '{ types { id } }')).toBe(true);
    expect(one.set('a', '{ types { id } }')).toBe(false);
    expect(other.get('a')).toBe('{ types { id } }');
    expect(published).toEqual(['a']);
  });

  it('publishes no query larger than the budget', () => {
    const { one, other, published } = joined();
    expect(one.set('big', 'x'.repeat(101))).toBe(false);
    expect([other.get('big'), published]).toEqual([undefined, []]);
  });

  it('lists its queries least recently used first', () => {
    const queries = createPersistedQueries(entries(2, 1));
    queries.set('a', 'x');
    queries.set('b', 'y');
    queries.get('a');
    expect([...queries.entries()]).toEqual([
      ['b', 'y'],
      ['a', 'x'],
    ]);
  });
});

describe('hashQuery', () => {
  it('is the lowercase hex sha256 clients compute', () => {
    expect(hashQuery('{ __typename }')).toBe('7f56e67dd21ab3f30d1ff8b7bed08893f0a0db86449836189b361dd1e56ddb4b');
  });
});

describe('readPersistedQuery', () => {
  const sha256Hash = '7F56E67DD21AB3F30D1FF8B7BED08893F0A0DB86449836189B361DD1E56DDB4B';

  it('returns null when the request does not use persisted queries', () => {
    expect(readPersistedQuery(undefined)).toBeNull();
    expect(readPersistedQuery({ tracing: true })).toBeNull();
  });

  it('reads version 1 with its hash, lowercased', () => {
    expect(readPersistedQuery({ persistedQuery: { version: 1, sha256Hash } })).toEqual({ sha256Hash: sha256Hash.toLowerCase() });
  });

  it('refuses another version, a malformed hash and a malformed extension', () => {
    expect(() => readPersistedQuery({ persistedQuery: { version: 2, sha256Hash } })).toThrow('extensions.persistedQuery.version 2 is not supported; expected 1');
    expect(() => readPersistedQuery({ persistedQuery: { version: 1, sha256Hash: 'abc' } })).toThrow(
      'extensions.persistedQuery.sha256Hash must be the hex sha256 of the query (64 characters)',
    );
    expect(() => readPersistedQuery({ persistedQuery: 'yes' })).toThrow('extensions.persistedQuery must be an object { version: 1, sha256Hash }');
  });
});
