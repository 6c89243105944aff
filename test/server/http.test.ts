import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError, GraphQLScalarType } from 'graphql';
import { serverAudits } from 'graphql-http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpServer, type HttpOptions } from '../../server/http.ts';

const sdl = /* GraphQL */ `
  scalar Code

  type Query {
    greeting(name: String! = "Zürich"): String!
    slice(limit: Int!): [Int!]!
    echo(code: Code!): String!
    broken: String
  }
`;

interface TestContext {
  salutation: string;
}

const schema = makeExecutableSchema<TestContext>({
  typeDefs: sdl,
  resolvers: {
    Code: new GraphQLScalarType({
      name: 'Code',
      parseValue: (value) => {
        if (typeof value !== 'string') throw new TypeError(`a code is a string, got ${typeof value}`);
        return value;
      },
    }),
    Query: {
      greeting: (_root, args: { name: string }, context) => `${context.salutation}, ${args.name}!`,
      echo: (_root, args: { code: string }) => args.code,
      slice: (_root, args: { limit: number }) => {
        if (args.limit < 0) {
          throw new GraphQLError(`limit must be at least 0, got ${args.limit}`, { extensions: { code: 'BAD_USER_INPUT' } });
        }
        return [1, 2, 3].slice(0, args.limit);
      },
      broken: () => {
        throw new Error('connect ECONNREFUSED /var/run/secret.sock');
      },
    },
  },
});

const sampleQueries = [{ name: 'greeting', query: '{ greeting }' }];

let context: TestContext | (() => never) = { salutation: 'Grüezi' };

const options: HttpOptions = {
  schema,
  context: () => (typeof context === 'function' ? context() : context),
  allowedOrigins: ['https://tourism.example'],
  sdl,
  sampleQueries: () => sampleQueries,
  playgroundQuery: '{ greeting(name: "Genève") }',
};

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createHttpServer(options);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

afterEach(() => {
  context = { salutation: 'Grüezi' };
  vi.restoreAllMocks();
});

/** Status, the headers that do not change between runs, and the body. */
async function send(path: string, init: RequestInit = {}) {
  const response = await fetch(baseUrl + path, init);
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers[name] = value;
  }
  return { status: response.status, headers, body: await response.text() };
}

function postQuery(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
  return send('/api/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

describe('GraphQL over HTTP audits', () => {
  // Audits are listed at collection time; they read the URL when they run, after beforeAll.
  // The MAY audits are left out: they test optional behaviour we are free to change.
  for (const audit of serverAudits({ url: () => `${baseUrl}/api/graphql` })) {
    if (audit.name.startsWith('MAY')) continue;
    it(audit.name, async () => {
      const result = await audit.fn();
      expect(result.status === 'ok' ? 'ok' : result.reason).toBe('ok');
    });
  }
});

describe('GraphQL endpoint', () => {
  it('answers a GET query', async () => {
    const query = encodeURIComponent('{ greeting(name: "Sils/Segl") }');
    expect(await send(`/api/graphql?query=${query}`, { headers: { accept: 'application/graphql-response+json' } })).toMatchInlineSnapshot(`
      {
        "body": "{"data":{"greeting":"Grüezi, Sils/Segl!"}}",
        "headers": {
          "content-length": "43",
          "content-type": "application/graphql-response+json; charset=utf-8",
          "vary": "Origin, Accept",
        },
        "status": 200,
      }
    `);
  });

  it('answers a POST query with variables in application/json', async () => {
    const response = await postQuery('query Slice($limit: Int!) { slice(limit: $limit) }', { limit: 2 }, { accept: 'application/json' });
    expect(response).toMatchInlineSnapshot(`
      {
        "body": "{"data":{"slice":[1,2]}}",
        "headers": {
          "content-length": "24",
          "content-type": "application/json; charset=utf-8",
          "vary": "Origin, Accept",
        },
        "status": 200,
      }
    `);
  });

  it('takes the context anew for every request', async () => {
    expect(JSON.parse((await postQuery('{ greeting }')).body)).toEqual({ data: { greeting: 'Grüezi, Zürich!' } });
    context = { salutation: 'Bonjour' };
    expect(JSON.parse((await postQuery('{ greeting }')).body)).toEqual({ data: { greeting: 'Bonjour, Zürich!' } });
  });

  it('passes a GraphQLError thrown by a resolver through with its code', async () => {
    const response = await postQuery('{ slice(limit: -1) }');
    expect(JSON.parse(response.body)).toEqual({
      data: null,
      errors: [
        {
          message: 'limit must be at least 0, got -1',
          locations: [{ line: 1, column: 3 }],
          path: ['slice'],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
  });

  it('hides an internal error from the client and logs it in full', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const response = await postQuery('query Broken { greeting broken }');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      data: { greeting: 'Grüezi, Zürich!', broken: null },
      errors: [
        {
          message: 'Internal server error',
          locations: [{ line: 1, column: 25 }],
          path: ['broken'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
    });
    expect(response.body).not.toMatch(/ECONNREFUSED|secret|\.ts|at /);
    expect(log).toHaveBeenCalledOnce();
    expect(log.mock.calls[0]).toEqual([
      'Internal error in operation Broken at broken:',
      expect.objectContaining({ message: 'connect ECONNREFUSED /var/run/secret.sock', stack: expect.any(String) }),
    ]);
  });

  it('passes an error a scalar throws on a bad argument through, as it is about the request', async () => {
    const log = vi.spyOn(console, 'error');
    const response = await postQuery('{ echo(code: 5) }', undefined, { accept: 'application/json' });
    expect(JSON.parse(response.body)).toEqual({
      errors: [{ message: 'Expected value of type "Code!", found 5; a code is a string, got number', locations: [{ line: 1, column: 14 }] }],
    });
    expect(log).not.toHaveBeenCalled();
  });

  it('answers 500 without details when taking the context fails', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    context = () => {
      throw new Error('snapshot /data/v1 vanished');
    };
    const response = await postQuery('{ greeting }');
    expect(response).toMatchInlineSnapshot(`
      {
        "body": "{"errors":[{"message":"Internal server error","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}",
        "headers": {
          "content-length": "94",
          "content-type": "application/json; charset=utf-8",
          "vary": "Origin, Accept",
        },
        "status": 500,
      }
    `);
    expect(log).toHaveBeenCalledWith('Internal error answering POST /api/graphql:', expect.objectContaining({ message: 'snapshot /data/v1 vanished' }));
  });

  it('grants an allowed origin and a localhost origin', async () => {
    for (const origin of ['https://tourism.example', 'http://localhost:5173']) {
      const response = await postQuery('{ greeting }', undefined, { origin });
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers.vary).toBe('Origin, Accept');
    }
  });

  it('serves a foreign origin without a grant', async () => {
    const response = await postQuery('{ greeting }', undefined, { origin: 'https://evil.example' });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight for a GraphQL POST from a localhost origin', async () => {
    const response = await send('/api/graphql', {
      method: 'OPTIONS',
      headers: { origin: 'http://[::1]:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(response).toMatchInlineSnapshot(`
      {
        "body": "",
        "headers": {
          "access-control-allow-headers": "content-type",
          "access-control-allow-methods": "GET, POST, OPTIONS",
          "access-control-allow-origin": "http://[::1]:5173",
          "access-control-max-age": "7200",
          "vary": "Origin, Access-Control-Request-Headers",
        },
        "status": 204,
      }
    `);
  });

  it('refuses a method other than GET and POST with 405', async () => {
    expect(await send('/api/graphql', { method: 'PUT', body: '{}' })).toMatchInlineSnapshot(`
      {
        "body": "{"error":{"code":"METHOD_NOT_ALLOWED","message":"/api/graphql answers GET, POST, OPTIONS, not PUT"}}",
        "headers": {
          "allow": "GET, POST, OPTIONS",
          "content-length": "100",
          "content-type": "application/json; charset=utf-8",
          "vary": "Origin",
        },
        "status": 405,
      }
    `);
  });
});

describe('playground', () => {
  const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

  async function openPlayground() {
    return send('/api/graphql', { headers: { accept: browserAccept } });
  }

  it('serves GraphiQL to a browser opening the endpoint', async () => {
    const { status, headers, body } = await openPlayground();
    expect(status).toBe(200);
    expect(headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      vary: 'Origin, Accept',
    });
    expect(headers['content-security-policy']).toContain("script-src 'self';");
    expect(body).toContain(
      '<div id="graphiql" data-endpoint="/api/graphql" data-default-query="{ greeting(name: &#34;Genève&#34;) }">',
    );
  });

  it('loads every script from a file, so the page runs under its CSP', async () => {
    const { body } = await openPlayground();
    expect(body.match(/<script src="\/api\/graphql\/assets\/[0-9a-f]{16}\/[\w.-]+\.js"><\/script>/g)).toHaveLength(4);
    expect(body.match(/<script/g)).toHaveLength(4);
    expect(body).not.toMatch(/\son\w+=/);
  });

  it('serves each asset of the page with its content type and a long cache', async () => {
    const { body } = await openPlayground();
    const paths = [...body.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]!);
    const served: Record<string, string | undefined> = {};
    for (const path of paths) {
      const asset = await send(path);
      expect(asset.status).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      served[path.replace(/\/[0-9a-f]{16}\//, '/<hash>/')] = asset.headers['content-type'];
    }
    expect(served).toMatchInlineSnapshot(`
      {
        "/api/graphql/assets/<hash>/graphiql.min.css": "text/css; charset=utf-8",
        "/api/graphql/assets/<hash>/graphiql.min.js": "text/javascript; charset=utf-8",
        "/api/graphql/assets/<hash>/playground.css": "text/css; charset=utf-8",
        "/api/graphql/assets/<hash>/playground.js": "text/javascript; charset=utf-8",
        "/api/graphql/assets/<hash>/react-dom.production.min.js": "text/javascript; charset=utf-8",
        "/api/graphql/assets/<hash>/react.production.min.js": "text/javascript; charset=utf-8",
      }
    `);
  });

  it('serves the bundles from node_modules byte for byte', async () => {
    const { body } = await openPlayground();
    const require = createRequire(import.meta.url);
    const bundles = {
      'react.production.min.js': join(dirname(require.resolve('react/package.json')), 'umd/react.production.min.js'),
      'react-dom.production.min.js': join(dirname(require.resolve('react-dom/package.json')), 'umd/react-dom.production.min.js'),
      'graphiql.min.js': join(dirname(require.resolve('graphiql/package.json')), 'graphiql.min.js'),
      'graphiql.min.css': join(dirname(require.resolve('graphiql/package.json')), 'graphiql.min.css'),
    };
    for (const [name, file] of Object.entries(bundles)) {
      const path = body.match(new RegExp(`"(/api/graphql/assets/[0-9a-f]{16}/${name.replaceAll('.', '\\.')})"`))![1]!;
      const response = await fetch(baseUrl + path);
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(file)), name).toBe(true);
    }
  });

  it('answers a browser GET that carries a query with JSON', async () => {
    const response = await send(`/api/graphql?query=${encodeURIComponent('{ greeting }')}`, { headers: { accept: browserAccept } });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ data: { greeting: 'Grüezi, Zürich!' } });
  });

  it('answers a GET without query and without text/html with a 400', async () => {
    const response = await send('/api/graphql', { headers: { accept: 'application/json' } });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ errors: [{ message: 'Missing query' }] });
  });
});

describe('/api/schema', () => {
  it('serves the SDL as plain text', async () => {
    const response = await send('/api/schema');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe(sdl);
  });

  it('serves the SDL for format=sdl', async () => {
    expect((await send('/api/schema?format=sdl')).body).toBe(sdl);
  });

  it('serves the sample queries as JSON for format=queries', async () => {
    const response = await send('/api/schema?format=queries');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual(sampleQueries);
  });

  it('refuses an unknown format with 400 naming the allowed values', async () => {
    expect(await send('/api/schema?format=graphql')).toMatchInlineSnapshot(`
      {
        "body": "{"error":{"code":"BAD_REQUEST","message":"Unknown format \\"graphql\\"; allowed values: sdl, queries"}}",
        "headers": {
          "content-length": "101",
          "content-type": "application/json; charset=utf-8",
          "vary": "Origin",
        },
        "status": 400,
      }
    `);
  });
});

describe('routing', () => {
  it('answers an unknown path with a 404 in the error shape', async () => {
    expect(await send('/graphql')).toMatchInlineSnapshot(`
      {
        "body": "{"error":{"code":"NOT_FOUND","message":"Nothing at /graphql; the API is at /api/graphql"}}",
        "headers": {
          "content-length": "90",
          "content-type": "application/json; charset=utf-8",
          "vary": "Origin",
        },
        "status": 404,
      }
    `);
  });

  it('answers an unknown asset with a 404', async () => {
    expect((await send('/api/graphql/assets/0000000000000000/graphiql.min.js')).status).toBe(404);
  });

  it('answers a plain OPTIONS request with the allowed methods', async () => {
    const response = await send('/api/schema', { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('serves a request without Origin without CORS headers', async () => {
    const response = await postQuery('{ greeting }');
    expect(response.status).toBe(200);
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
