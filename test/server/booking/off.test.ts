import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBookingHandler } from '../../../server/booking/routes.ts';
import { readBookingConfig } from '../../../server/config/bookingConfig.ts';

let server: http.Server;
let url: string;

beforeAll(async () => {
  const booking = await createBookingHandler({
    ...readBookingConfig({ BOOKING_MODE: 'off' }),
    activities: () => [],
    allowedOrigins: [],
    logger: { info() {}, warn() {}, error() {} },
  });
  server = http.createServer(async (req, res) => {
    if (!(await booking.handle(req, res))) res.writeHead(200, { 'content-type': 'text/plain' }).end('not booking');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('BOOKING_MODE=off', () => {
  it.each([
    ['GET', '/v1/activities/1/availability?date=2026-12-01'],
    ['POST', '/v1/reservations'],
    ['GET', '/v1/openapi.json'],
    ['GET', '/v1'],
  ])('answers %s %s with 404 BOOKING_OFF', async (method, path) => {
    const response = await fetch(`${url}${path}`, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
    expect([response.status, response.headers.get('content-type'), await response.json()]).toEqual([
      404,
      expect.stringContaining('application/json'),
      { error: { code: 'BOOKING_OFF', message: 'The booking interface is off on this server (BOOKING_MODE=off).', details: {} } },
    ]);
  });

  it('leaves every other path to the rest of the server', async () => {
    expect(await (await fetch(`${url}/v10`)).text()).toBe('not booking');
    expect(await (await fetch(`${url}/api/graphql`)).text()).toBe('not booking');
  });
});
