import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../../server/http/clientAddress.ts';

/** A request from `peer` with these X-Forwarded-For headers, as node:http hands it over. */
function from(peer: string | undefined, forwardedFor?: string | string[]): IncomingMessage {
  return { socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
}

describe('clientAddress', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(from('203.0.113.7'), 0)).toBe('203.0.113.7');
    expect(clientAddress(from('203.0.113.7', '198.51.100.1'), 0)).toBe('203.0.113.7');
    expect(clientAddress(from(undefined), 0)).toBe('unknown');
  });

  it('is the address the trusted proxy appended, not what the client wrote before it', () => {
    // The client sent "X-Forwarded-For: 1.2.3.4"; the one proxy appended the address it saw.
    expect(clientAddress(from('10.0.0.2', '1.2.3.4, 198.51.100.1'), 1)).toBe('198.51.100.1');
    expect(clientAddress(from('10.0.0.2', '198.51.100.1'), 1)).toBe('198.51.100.1');
  });

  it('counts trusted proxies from the right, through repeated headers too', () => {
    // A CDN appended the client's address, then the load balancer the CDN's.
    expect(clientAddress(from('10.0.0.2', '1.2.3.4, 198.51.100.1, 192.0.2.10'), 2)).toBe('198.51.100.1');
    expect(clientAddress(from('10.0.0.2', ['1.2.3.4, 198.51.100.1', '192.0.2.10']), 2)).toBe('198.51.100.1');
    expect(clientAddress(from('10.0.0.2', '2001:db8::1 ,192.0.2.10'), 2)).toBe('2001:db8::1');
  });

  it('takes the leftmost address when the chain is shorter than the proxies trusted, and the peer when there is none', () => {
    expect(clientAddress(from('10.0.0.2', '198.51.100.1'), 3)).toBe('198.51.100.1');
    expect(clientAddress(from('10.0.0.2'), 1)).toBe('10.0.0.2');
    expect(clientAddress(from('10.0.0.2', ' , '), 1)).toBe('10.0.0.2');
  });
});
