import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../server/config/config.ts';
import { readConfig } from '../../../../../server/config/config.ts';
import { createDocumentChecker } from '../../../../../server/execution/limits.ts';
import { createSchema, readSdl } from '../../../../../server/execution/schema.ts';
import { hashQuery } from '../../../../../server/http/graphql/persistedQueries.ts';
import { loadTrustedDocuments } from '../../../../../server/http/graphql/trustedDocuments/trustedDocuments.ts';
import { MAX_OPERATION_NAMES } from '../../../../../server/ops/graphqlCounters.ts';
import { resolvers } from '../../../../../server/resolvers/index.ts';
import { startTestApi, type TestApi } from '../../../../helpers/api.ts';

const TYPES = 'query Types { types { id title } }';
const LOCATIONS = 'query Locations($limit: Int) { locations(limit: $limit) { id title } }';
const ACTIVITY = 'query Activity($id: String!) { activity(id: $id) { id title } }';

const dir = mkdtempSync(path.join(tmpdir(), 'trusted-documents-'));

/** Writes a manifest into the test's directory and returns its path. */
function manifest(name: string, json: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof json === 'string' ? json : JSON.stringify(json, null, 2));
  return file;
}

/** GraphQL Code Generator's client preset's format: sha256 of each document, as it hashes them. */
const codegen = manifest('persisted-documents.json', { [hashQuery(TYPES)]: TYPES, [hashQuery(LOCATIONS)]: LOCATIONS });

/** Apollo's persisted query list. */
const apollo = manifest('persisted-query-manifest.json', {
  format: 'apollo-persisted-query-manifest',
  version: 1,
  operations: [{ id: hashQuery(ACTIVITY), name: 'Activity', type: 'query', body: ACTIVITY }],
});

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };

/** Sends a request to the API and reads the status and the JSON body. */
async function call(api: TestApi, init: { body?: unknown; search?: string }): Promise<{ status: number; body: any }> {
  const url = `${api.server.url}/api/graphql${init.search ? `?${init.search}` : ''}`;
  const response = init.body === undefined
    ? await fetch(url, { headers: { accept: 'application/graphql-response+json' } })
    : await fetch(url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(init.body) });
  return { status: response.status, body: await response.json() };
}

let open: TestApi;
let only: TestApi;
let activityId: string;

beforeAll(async () => {
  open = await startTestApi({ PERSISTED_DOCUMENTS: `${codegen},${apollo}` });
  only = await startTestApi({ PERSISTED_DOCUMENTS: `${codegen}, ${apollo}`, PERSISTED_DOCUMENTS_ONLY: '1' });
  activityId = (await open.query('{ activities(limit: 1) { data { id } } }')).data!.activities.data[0].id;
});

afterAll(async () => {
  await open.close();
  await only.close();
});

describe('trusted documents', () => {
  it('runs a document of a GraphQL Code Generator manifest by the documentId of a POST, with or without sha256:', async () => {
    const expected = await open.query(TYPES);
    expect(expected.data!.types.length).toBeGreaterThan(0);
    expect(await call(only, { body: { documentId: hashQuery(TYPES) } })).toEqual({ status: 200, body: expected });
    expect(await call(only, { body: { documentId: `sha256:${hashQuery(TYPES)}` } })).toEqual({ status: 200, body: expected });
  });

  it('runs a document with variables by the documentId parameter of a GET', async () => {
    const expected = await open.query(LOCATIONS, { limit: 2 });
    expect(expected.data!.locations).toHaveLength(2);
    const variables = encodeURIComponent(JSON.stringify({ limit: 2 }));
    expect(await call(only, { search: `documentId=${hashQuery(LOCATIONS)}&variables=${variables}` })).toEqual({ status: 200, body: expected });
    expect(await call(only, { search: `documentId=sha256:${hashQuery(LOCATIONS)}&variables=${variables}` })).toEqual({ status: 200, body: expected });
  });

  it('runs a document of an Apollo persisted query list by its id, and by the hash of an automatic persisted query', async () => {
    const expected = await open.query(ACTIVITY, { id: activityId });
    expect(expected.data!.activity.id).toBe(activityId);
    expect(await call(only, { body: { documentId: hashQuery(ACTIVITY), variables: { id: activityId } } })).toEqual({ status: 200, body: expected });
    const extensions = { persistedQuery: { version: 1, sha256Hash: hashQuery(ACTIVITY) } };
    expect(await call(only, { body: { extensions, variables: { id: activityId } } })).toEqual({ status: 200, body: expected });
    const search = `extensions=${encodeURIComponent(JSON.stringify(extensions))}&variables=${encodeURIComponent(JSON.stringify({ id: activityId }))}`;
    expect(await call(only, { search })).toEqual({ status: 200, body: expected });
  });

  it('checks the variables of a trusted document as those of any query', async () => {
    const { status, body } = await call(only, { body: { documentId: hashQuery(ACTIVITY) } });
    expect(status).toBe(400);
    expect(body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('answers PERSISTED_QUERY_NOT_FOUND for an unknown documentId', async () => {
    const notFound = {
      status: 400,
      body: { errors: [{ message: 'PersistedQueryNotFound: the documentId names none of the trusted documents of this server', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] },
    };
    expect(await call(open, { body: { documentId: hashQuery('{ types { id } }') } })).toEqual(notFound);
    expect(await call(only, { search: 'documentId=sha256:0123' })).toEqual(notFound);
  });

  it('refuses a documentId sent with a query, or one that is no string', async () => {
    expect(await call(open, { body: { documentId: hashQuery(TYPES), query: TYPES } })).toEqual({
      status: 400,
      body: { errors: [{ message: 'Send either documentId or query, not both', extensions: { code: 'BAD_REQUEST' } }] },
    });
    const { status, body } = await call(open, { body: { documentId: 42 } });
    expect([status, body.errors[0].extensions.code, body.errors[0].message]).toEqual([400, 'BAD_REQUEST', expect.stringMatching(/^documentId must be the id of a trusted document/)]);
  });

  it("with PERSISTED_DOCUMENTS_ONLY, still answers GeoJSON, whose documents are the server's own, within the GeoJSON bounds", async () => {
    const geojson = await fetch(`${only.server.url}/api/geojson/tours?q=zermatt`);
    expect(geojson.status).toBe(200);
    expect(((await geojson.json()) as { features: unknown[] }).features.length).toBeGreaterThan(0);
    const tooMany = await fetch(`${only.server.url}/api/geojson/tours?limit=5001`);
    expect(tooMany.status).toBe(400);
    // The same list sent as a query of the client's is refused.
    const query = 'query GeojsonTours($q: String) { tours(q: $q) { total hasMore data { id name longitude latitude } } }';
    expect((await call(only, { body: { query, variables: { q: 'zermatt' } } })).body.errors[0].extensions.code).toBe('TRUSTED_DOCUMENT_REQUIRED');
  });

  it('without PERSISTED_DOCUMENTS_ONLY, still answers other queries and registers persisted queries', async () => {
    const query = '{ types { id } }';
    const extensions = { persistedQuery: { version: 1, sha256Hash: hashQuery(query) } };
    expect((await call(open, { body: { query } })).status).toBe(200);
    expect((await call(open, { body: { query, extensions } })).status).toBe(200);
    expect((await call(open, { body: { extensions } })).status).toBe(200);
  });
});

describe('metrics of trusted documents', () => {
  it(`labels a trusted document's operation by its name even after ${MAX_OPERATION_NAMES} other names took every other label`, async () => {
    const api = await startTestApi({ PERSISTED_DOCUMENTS: apollo });
    try {
      for (let i = 0; i < MAX_OPERATION_NAMES + 1; i++) expect((await call(api, { body: { query: `query Seen${i} { types { id } }` } })).status).toBe(200);
      expect((await call(api, { body: { documentId: hashQuery(ACTIVITY), variables: { id: activityId } } })).status).toBe(200);
      const metrics = await (await fetch(`${api.server.url}/metrics`)).text();
      expect(metrics).toContain('graphql_requests_total{operation="Activity",outcome="ok"} 1');
      expect(metrics).toContain('graphql_requests_total{operation="other",outcome="ok"} 1');
    } finally {
      await api.close();
    }
  });
});

describe('with PERSISTED_DOCUMENTS_ONLY', () => {
  const required = {
    status: 400,
    body: {
      errors: [
        {
          message: 'Only trusted documents are answered: send the documentId (or extensions.persistedQuery.sha256Hash) of a document the server was given, without the query',
          extensions: { code: 'TRUSTED_DOCUMENT_REQUIRED' },
        },
      ],
    },
  };

  it('refuses a query sent in full, by POST and by GET, even the text of a trusted document', async () => {
    expect(await call(only, { body: { query: '{ types { id } }' } })).toEqual(required);
    expect(await call(only, { body: { query: TYPES } })).toEqual(required);
    expect(await call(only, { search: `query=${encodeURIComponent('{ types { id } }')}` })).toEqual(required);
  });

  it('refuses to register an automatic persisted query, which stays unknown', async () => {
    const query = '{ locations { id } }';
    const extensions = { persistedQuery: { version: 1, sha256Hash: hashQuery(query) } };
    expect(await call(only, { body: { query, extensions } })).toEqual(required);
    expect(await call(only, { body: { extensions } })).toEqual({
      status: 400,
      body: { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] },
    });
  });

  it('answers a trusted document sent by its hash with its own text, as Apollo Client registers it', async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: hashQuery(TYPES) } };
    expect(await call(only, { body: { query: TYPES, extensions } })).toEqual({ status: 200, body: await open.query(TYPES) });
  });
});

describe('a manifest that cannot be used', () => {
  /** The error startTestApi rejects with for these manifests. */
  async function startError(...files: string[]): Promise<unknown> {
    return startTestApi({ PERSISTED_DOCUMENTS: files.join(',') }).then(
      async (api) => {
        await api.close();
        return undefined;
      },
      (error: unknown) => error,
    );
  }

  it('stops the start, naming the file and the operation of a document the schema refuses', async () => {
    const file = manifest('bad-field.json', { [hashQuery(TYPES)]: TYPES, abc: 'query Broken { types { id colour } }' });
    const error = await startError(file);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`PERSISTED_DOCUMENTS: ${file}: operation "Broken" (id abc): Cannot query field "colour" on type "ActivityType".`);
  });

  it('stops the start for a document past a limit, naming the limit', async () => {
    const deep = 'query Deep { activities { data { supplier { id location { id } } } } }';
    const tooDeep = manifest('too-deep.json', { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'd1', name: 'Deep', type: 'query', body: deep }] });
    expect(await startTestApi({ PERSISTED_DOCUMENTS: tooDeep, MAX_DEPTH: '2' }).catch((error: Error) => error.message)).toMatch(
      new RegExp(`^PERSISTED_DOCUMENTS: ${tooDeep}: operation "Deep" \\(id d1\\): Query is 5 levels deep; the limit is 2$`),
    );
  });

  it.each([
    ['not JSON', '{ "abc": ', /: not JSON \(/],
    ['in neither format', { operations: [] }, /: neither a GraphQL Code Generator persisted-documents.json \(\{ "<hash>": "<document>" \}\) nor an Apollo persisted query list/],
    ['of another version', { format: 'apollo-persisted-query-manifest', version: 2, operations: [] }, /: Apollo persisted query list version 2 is not supported; expected 1$/],
    ['with an entry without a body', { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'x', name: 'X' }] }, /: operations\[0\] is not \{ id, name, type, body \}/],
    [
      'naming an operation its document lacks',
      { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'x', name: 'Other', type: 'query', body: TYPES }] },
      /: operation "Other" \(id x\): the manifest names the operation "Other", which the document does not define$/,
    ],
  ])('stops the start for a manifest %s, naming the file', async (name, json, message) => {
    const file = manifest(`${name.replaceAll(' ', '-')}.json`, json);
    const error = (await startError(file)) as Error;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message.startsWith(`PERSISTED_DOCUMENTS: ${file}: `)).toBe(true);
    expect(error.message).toMatch(message);
  });

  it('stops the start for an id given two different documents', async () => {
    const other = manifest('other.json', { [hashQuery(TYPES)]: '{ types { id } }' });
    expect(((await startError(codegen, other)) as Error).message).toBe(
      `PERSISTED_DOCUMENTS: ${other}: id ${hashQuery(TYPES)} is given another document than in ${codegen}; an id names one document`,
    );
  });

  it('stops the start for a file that cannot be read', async () => {
    const missing = path.join(dir, 'missing.json');
    expect(((await startError(missing)) as Error).message).toBe(`PERSISTED_DOCUMENTS: ${missing}: cannot be read (ENOENT)`);
  });
});

describe('loadTrustedDocuments', () => {
  const config = readConfig({});
  const check = createDocumentChecker(createSchema(readSdl(), resolvers), config.limits, { introspection: true });

  it('finds a document by its id, with or without sha256:, and by the sha256 of its text', async () => {
    const documents = await loadTrustedDocuments([apollo, codegen], check);
    expect(documents.size).toBe(3);
    expect(documents.byId(hashQuery(ACTIVITY))).toMatchObject({ id: hashQuery(ACTIVITY), query: ACTIVITY, operationNames: ['Activity'], file: apollo });
    expect(documents.byId(`sha256:${hashQuery(TYPES).toUpperCase()}`)?.query).toBe(TYPES);
    const byName = manifest('by-name.json', { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'types-v1', name: 'Types', type: 'query', body: TYPES }] });
    const named = await loadTrustedDocuments([byName], check);
    expect([named.byId('types-v1')?.query, named.byId(hashQuery(TYPES))?.id, named.byId('types-v2')]).toEqual([TYPES, 'types-v1', undefined]);
  });

  it('names the operations of every document', async () => {
    const documents = await loadTrustedDocuments([codegen, apollo], check);
    expect([...documents.names()].sort()).toEqual(['Activity', 'Locations', 'Types']);
  });
});
