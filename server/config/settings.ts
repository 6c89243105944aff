import { ConfigError } from './configError.ts';

/**
 * Reads an integer setting from the environment; blank or unset gives `fallback`.
 *
 * @throws ConfigError naming the variable, its value and the allowed range
 */
export function integerSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new ConfigError(`${name}="${raw}": expected an integer from ${min} to ${max}`);
  return value;
}
