/** Whether the port the server is to listen on is free, asked before the snapshot is loaded. */

import { once } from 'node:events';
import { createServer } from 'node:net';
import { ConfigError } from '../config/configError.ts';

/**
 * Binds `port` on `host` and lets it go at once, so that a port in use stops the start before
 * the snapshot is loaded and indexed, which takes seconds, rather than after. Another process
 * may still take the port in between; listening then fails as before. Port 0 is always free.
 *
 * @throws ConfigError naming PORT (and HOST) when the port is in use or may not be bound
 */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  probe.listen({ port, host, exclusive: true });
  try {
    await once(probe, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`PORT=${port}: ${host}:${port} is already in use by another process; stop it, or set PORT to a free port`);
    if (code === 'EACCES') throw new ConfigError(`PORT=${port}: this process may not listen on ${host}:${port} (ports below 1024 need privileges); set PORT to 1024 or above`);
    if (code === 'EADDRNOTAVAIL') throw new ConfigError(`HOST=${host}: no network interface of this machine has that address; set HOST to one of its addresses, or 0.0.0.0`);
    throw error;
  }
  probe.close();
  await once(probe, 'close');
}
