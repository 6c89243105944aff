/**
 * All settings, read from the environment once at start and validated: a bad value stops
 * the start with a message naming the variable and what is allowed.
 */

export interface Config {
  /** TCP port; PORT, default 4000. */
  port: number;
  /** Interface to bind; HOST, default 0.0.0.0 (all). */
  host: string;
  /** Directory with manifest.json; DATA_DIR, default "data". */
  dataDir: string;
  /** Extra browser origins allowed by CORS (localhost is always allowed); ALLOWED_ORIGINS, comma-separated. */
  allowedOrigins: string[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: integer(env, 'PORT', 4000, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    dataDir: env.DATA_DIR?.trim() || 'data',
    allowedOrigins: origins(env, 'ALLOWED_ORIGINS'),
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name}="${raw}": expected an integer from ${min} to ${max}`);
  return value;
}

function origins(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw.split(',').map((item) => {
    const value = item.trim();
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(`${name}: "${value}" is not an origin; expected e.g. https://www.example.ch`);
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '')) {
      throw new ConfigError(`${name}: "${value}" is not an origin; expected scheme://host[:port] without a path, e.g. https://www.example.ch`);
    }
    return url.origin;
  });
}
