import { describe, expect, it } from 'vitest';
import { readSyncConfig, SyncConfigError } from '../../sync/config.ts';

const keys = { MYSWITZERLAND_API_KEY: 'm-key', SWISSACTIVITIES_API_KEY: 's-key', STNET_USERNAME: 'w-user', STNET_API_KEY: 'w-key' };

describe('readSyncConfig', () => {
  it('uses the real hosts when no base URL is set', () => {
    expect(readSyncConfig(['tours', 'activities', 'snowdata'], keys)).toEqual({
      deadlineMs: 3_600_000,
      attemptTimeoutMs: 120_000,
      sources: {
        tours: { baseUrl: 'https://opendata.myswitzerland.io/v1', apiKey: 'm-key', requestIntervalMs: 1_000, rateLimitWaitMs: 65_000 },
        activities: {
          contentUrl: 'https://contentapi.swissactivities.com/graphql',
          bookingUrl: 'https://bookingapi.swissactivities.com',
          apiKey: 's-key',
          authHeader: 'Authorization',
        },
        snowdata: { baseUrl: 'http://st.stnet.ch/api/services/wispostations', username: 'w-user', apiKey: 'w-key', pagePauseMs: 300, timeoutMs: 60_000 },
      },
      secrets: ['s-key', 'w-key', 'm-key'],
    });
  });

  it('reads only what the requested sources need', () => {
    expect(readSyncConfig(['snowdata'], { STNET_USERNAME: 'w-user', STNET_API_KEY: 'w-key', STNET_BASE_URL: 'http://127.0.0.1:9/wispostations' })).toEqual({
      deadlineMs: 3_600_000,
      attemptTimeoutMs: 120_000,
      sources: { snowdata: { baseUrl: 'http://127.0.0.1:9/wispostations', username: 'w-user', apiKey: 'w-key', pagePauseMs: 300, timeoutMs: 60_000 } },
      secrets: ['w-key'],
    });
  });

  it('needs both the STnet account name and its key', () => {
    expect(() => readSyncConfig(['snowdata'], { STNET_API_KEY: 'w-key' })).toThrow('STNET_USERNAME is not set (needed for snowdata)');
  });

  it('names every missing key and every bad URL at once', () => {
    const read = () => readSyncConfig(['attractions', 'activities'], { SWISSACTIVITIES_BOOKING_URL: 'ftp://example.ch', MYSWITZERLAND_API_KEY: '  ' });
    expect(read).toThrow(SyncConfigError);
    expect(read).toThrow(
      'SWISSACTIVITIES_BOOKING_URL="ftp://example.ch" is not an http(s) URL; SWISSACTIVITIES_API_KEY is not set (needed for activities); MYSWITZERLAND_API_KEY is not set (needed for attractions)',
    );
  });

  it('takes the header of the booking key from SWISSACTIVITIES_AUTH_HEADER and refuses one that is no header name', () => {
    const env = { SWISSACTIVITIES_API_KEY: 's-key', SWISSACTIVITIES_AUTH_HEADER: 'X-Api-Key' };
    expect((readSyncConfig(['activities'], env).sources.activities as { authHeader: string }).authHeader).toBe('X-Api-Key');
    expect(() => readSyncConfig(['activities'], { ...env, SWISSACTIVITIES_AUTH_HEADER: 'X Api: Key' })).toThrow(
      'SWISSACTIVITIES_AUTH_HEADER="X Api: Key" is not an HTTP header name',
    );
  });

  it('reads the MySwitzerland pacing, the 429 wait and the deadline, and refuses what is not whole milliseconds', () => {
    const env = { MYSWITZERLAND_API_KEY: 'm-key', MYSWITZERLAND_REQUEST_INTERVAL_MS: '250', MYSWITZERLAND_RATE_LIMIT_WAIT_MS: '65000', SYNC_DEADLINE_MS: '600000' };
    expect(readSyncConfig(['tours'], env)).toMatchObject({ deadlineMs: 600_000, sources: { tours: { requestIntervalMs: 250, rateLimitWaitMs: 65_000 } } });
    expect(() => readSyncConfig(['attractions'], { ...env, MYSWITZERLAND_RATE_LIMIT_WAIT_MS: '1m', SYNC_DEADLINE_MS: '-1' })).toThrow(
      'SYNC_DEADLINE_MS="-1" is not a whole number of milliseconds; MYSWITZERLAND_RATE_LIMIT_WAIT_MS="1m" is not a whole number of milliseconds',
    );
  });

  it('reads the STnet pause and timeout, and refuses a value outside its range', () => {
    const env = { STNET_USERNAME: 'w-user', STNET_API_KEY: 'w-key', STNET_PAGE_PAUSE_MS: '0', STNET_TIMEOUT_MS: '5000' };
    expect(readSyncConfig(['snowdata'], env).sources.snowdata).toMatchObject({ pagePauseMs: 0, timeoutMs: 5000 });
    expect(() => readSyncConfig(['snowdata'], { ...env, STNET_TIMEOUT_MS: '0' })).toThrow('STNET_TIMEOUT_MS="0" is out of range (1000 to 600000 ms)');
  });
});
