import { describe, expect, it } from 'vitest';
import { readBookingConfig } from '../../../server/config/bookingConfig.ts';
import { ConfigError } from '../../../server/config/config.ts';

const PROXY = { BOOKING_UPSTREAM_URL: 'https://api.partner.example/base/', BOOKING_API_KEY: 'sk_live_abc' };

describe('readBookingConfig', () => {
  it('defaults to the sandbox with its journal in .state, 60 writes a minute, no trusted proxy, 50 reservations a cart and 200 held places a client', () => {
    expect(readBookingConfig({})).toEqual({ mode: 'sandbox', stateDir: '.state', rateLimitPerMinute: 60, trustedProxies: 0, idempotencyMaxEntries: 100000, idempotencyMaxBytes: 67108864, maxCartItems: 50, maxHeldPlaces: 200 });
    expect(
      readBookingConfig({ STATE_DIR: '/var/lib/booking', BOOKING_RATE_LIMIT: '0', TRUST_PROXY: '2', BOOKING_MAX_CART_ITEMS: '10', BOOKING_MAX_HELD_PLACES: '40' }),
    ).toEqual({
      mode: 'sandbox',
      stateDir: '/var/lib/booking',
      rateLimitPerMinute: 0,
      idempotencyMaxEntries: 100000,
      idempotencyMaxBytes: 67108864,
      trustedProxies: 2,
      maxCartItems: 10,
      maxHeldPlaces: 40,
    });
  });

  it('turns to proxy mode when an upstream is configured', () => {
    expect(readBookingConfig(PROXY)).toEqual({
      mode: 'proxy',
      upstreamUrl: 'https://api.partner.example/base',
      apiKey: 'sk_live_abc',
      authHeader: 'Authorization',
      upstreamTimeoutMs: 10_000,
      rateLimitPerMinute: 60,
      idempotencyMaxEntries: 100000,
      idempotencyMaxBytes: 67108864,
      trustedProxies: 0,
    });
  });

  it("forwards to Swiss Activities' booking host unless told otherwise, with the key in the header SWISSACTIVITIES_AUTH_HEADER names", () => {
    expect(readBookingConfig({ BOOKING_MODE: 'proxy', BOOKING_API_KEY: 'sk_live_abc' })).toMatchObject({
      mode: 'proxy',
      upstreamUrl: 'https://bookingapi.swissactivities.com',
      authHeader: 'Authorization',
    });
    expect(readBookingConfig({ ...PROXY, SWISSACTIVITIES_AUTH_HEADER: ' X-Api-Key ' })).toMatchObject({ authHeader: 'X-Api-Key' });
  });

  it('keeps the sandbox when told so, even with an upstream configured', () => {
    expect(readBookingConfig({ ...PROXY, BOOKING_MODE: 'sandbox' }).mode).toBe('sandbox');
    expect(readBookingConfig({ ...PROXY, BOOKING_MODE: 'off' })).toEqual({ mode: 'off', rateLimitPerMinute: 60, trustedProxies: 0, idempotencyMaxEntries: 100000, idempotencyMaxBytes: 64 * 1024 * 1024 });
  });

  it('names the variable and what is allowed for a bad value', () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [{ BOOKING_MODE: 'live' }, 'BOOKING_MODE="live": expected proxy, sandbox or off'],
      [{ BOOKING_MODE: 'proxy' }, "BOOKING_MODE=proxy needs BOOKING_API_KEY, the partner contract's API key"],
      [{ ...PROXY, SWISSACTIVITIES_AUTH_HEADER: 'X Api Key' }, 'SWISSACTIVITIES_AUTH_HEADER="X Api Key": expected an HTTP header name, e.g. Authorization or X-Api-Key'],
      [{ BOOKING_UPSTREAM_URL: 'https://api.partner.example' }, "BOOKING_MODE=proxy needs BOOKING_API_KEY, the partner contract's API key"],
      [{ ...PROXY, BOOKING_UPSTREAM_URL: 'ftp://partner.example' }, 'BOOKING_UPSTREAM_URL="ftp://partner.example": expected an http(s) URL, e.g. https://bookingapi.swissactivities.com'],
      [{ ...PROXY, BOOKING_UPSTREAM_URL: 'https://api.partner.example/?v=1' }, 'BOOKING_UPSTREAM_URL="https://api.partner.example/?v=1": expected no query or fragment; the partner paths (/reservations, ...) are appended to its path'],
      [{ ...PROXY, BOOKING_UPSTREAM_TIMEOUT_MS: '5s' }, 'BOOKING_UPSTREAM_TIMEOUT_MS="5s": expected an integer from 100 to 120000'],
      [{ BOOKING_RATE_LIMIT: '-1' }, 'BOOKING_RATE_LIMIT="-1": expected an integer from 0 to 100000'],
      [{ BOOKING_MAX_CART_ITEMS: '0' }, 'BOOKING_MAX_CART_ITEMS="0": expected an integer from 1 to 1000'],
      [{ BOOKING_MAX_HELD_PLACES: 'many' }, 'BOOKING_MAX_HELD_PLACES="many": expected an integer from 1 to 100000'],
      [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY="true": expected an integer from 0 to 10'],
      [{ ...PROXY, TRUST_PROXY: '11' }, 'TRUST_PROXY="11": expected an integer from 0 to 10'],
    ];
    for (const [env, message] of cases) {
      expect(() => readBookingConfig(env)).toThrow(new ConfigError(message));
    }
  });

  it('never repeats a credential in its messages', () => {
    const inUrl = () => readBookingConfig({ ...PROXY, BOOKING_UPSTREAM_URL: 'https://user:hunter2@api.partner.example' });
    expect(inUrl).toThrow('BOOKING_UPSTREAM_URL must not carry credentials; put the key in BOOKING_API_KEY');
    const badKey = () => readBookingConfig({ ...PROXY, BOOKING_API_KEY: 'sk live hunter2' });
    expect(badKey).toThrow('BOOKING_API_KEY: expected visible ASCII characters without spaces (the value is not shown)');
    for (const read of [inUrl, badKey]) {
      try {
        read();
      } catch (error) {
        expect((error as Error).message).not.toContain('hunter2');
      }
    }
  });
});
