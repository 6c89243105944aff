/** The check of a list's `sort` argument (the orders themselves: sorted.ts). */

import { badInput, type NearMe } from './args.ts';
import { DISTANCE, type SortDefinition } from './sorted.ts';

/**
 * Reads `sort`: GraphQL's validation has refused a value outside the list's enum already, so what
 * is left to refuse is near-me's order without near-me.
 * @returns the sort, or null for the list's default order
 * @throws GraphQLError BAD_USER_INPUT for a distance order without nearLat/nearLng
 */
export function checkSort<R>(value: string | null | undefined, sorts: Readonly<Record<string, SortDefinition<R>>>, near: NearMe | null): { name: string; definition: SortDefinition<R> } | null {
  if (value === null || value === undefined) return null;
  const definition = sorts[value];
  if (definition === undefined) throw badInput(`sort: "${value}" is not allowed; allowed: ${Object.keys(sorts).join(', ')}`);
  if (definition === DISTANCE && near === null) {
    const others = Object.keys(sorts).filter((name) => sorts[name] !== DISTANCE);
    throw badInput(`sort: ${value} needs nearLat and nearLng; allowed without them: ${others.join(', ')}`);
  }
  return { name: value, definition };
}
