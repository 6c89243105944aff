/** What a request's state and the metrics learn of an operation that passed the checks. */

import type { PreparedRequest } from '../../execution/engine.ts';
import type { RequestState } from '../requestState.ts';
import type { GraphqlMetrics } from './graphqlMetrics.ts';
import { MAX_LOGGED_OPERATION_NAME } from './requestFacts.ts';

/**
 * Notes an operation about to be answered: its label, name, document and cost, in the state and
 * the metrics.
 * @param query the document sent (or stored for its persisted-query hash)
 */
export function markPassedChecks(state: RequestState, prepared: PreparedRequest & { errors?: undefined }, metrics: GraphqlMetrics, query: string): void {
  const { operation, cost } = prepared;
  state.operation = operation.label;
  state.operationName = operation.operation.name?.value.slice(0, MAX_LOGGED_OPERATION_NAME);
  state.query = query;
  state.cost = cost;
  state.passedChecks = true;
  metrics.observeCost(cost);
}
