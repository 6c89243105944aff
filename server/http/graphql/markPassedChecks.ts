/** What a request's state and the metrics learn of an operation that passed the checks. */

import type { PreparedRequest } from '../../execution/engine.ts';
import type { RequestState } from '../requestState.ts';
import type { GraphqlMetrics } from './graphqlMetrics.ts';

/** Longest client operation name written to the logs; the rest is cut. */
const MAX_LOGGED_OPERATION_NAME = 100;

/** Notes an operation about to be answered: its label, name and cost, in the state and the metrics. */
export function markPassedChecks(state: RequestState, prepared: PreparedRequest & { errors?: undefined }, metrics: GraphqlMetrics): void {
  const { operation, cost } = prepared;
  state.operation = operation.label;
  state.operationName = operation.operation.name?.value.slice(0, MAX_LOGGED_OPERATION_NAME);
  state.cost = cost;
  state.passedChecks = true;
  metrics.observeCost(cost);
}
