/**
 * A checked operation, ready to answer: its variables coerced and measured once per text sent,
 * compiled by graphql-jit from its second execution on, written by the answer writer when it can
 * be. The engine (server/execution/engine.ts) keeps these in its cache.
 */

import { execute, getVariableValues, Kind, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { answerOf, isTooLarge, tooLargeAnswer, type Answer, type FormatError } from './answer.ts';
import { compileAnswerWriter, type AnswerWriter } from './json/answerWriter.ts';
import { AnswerTooLargeError, type JsonWriter } from './json/jsonWriter.ts';
import type { RecordBytesCache } from './json/recordBytesCache.ts';
import type { AnswerSizes } from '../snapshot/answerSizes.ts';
import type { QueryLimits } from '../config/config.ts';
import type { Deadline } from './deadline.ts';
import { isPromise } from '../util/isPromise.ts';
import { costVariables, estimateAnswerBytes, measureCost, type CheckedOperation } from './limits.ts';
import { checkArguments } from './argumentChecks.ts';
import { argumentReaders } from '../resolvers/index.ts';
import { RecordingDeadline } from './recordingDeadline.ts';

/**
 * Coerced variables with their cost remembered per operation, by the variables sent, and costs by
 * the values of the variables given as a `limit`; each forgotten all at once when full.
 */
const COSTS_PER_OPERATION = 32;

/** Longest JSON text of the variables sent whose cost and coercion are remembered: the key is that text. */
const MAX_REMEMBERED_VARIABLES_CHARS = 1024;

/** Executions of an operation before it is compiled: a document used once is not worth compiling. */
const COMPILE_AT_EXECUTION = 2;

/**
 * The answer of an operation from which on its writer keeps records' bytes: the parts of a
 * document sent once (a query builder's) would be copied into the record bytes cache and
 * collected, never copied out.
 */
const KEEP_RECORDS_AT_ANSWER = 2;

/** Variables as a request sends them. */
export type SentVariables = Readonly<Record<string, unknown>> | null | undefined;

/** A checked operation, ready to execute with any variables that pass the checks. */
export interface PreparedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** Metrics label: the operation's one root field, `multiple`, or `introspection`. */
  readonly label: string;
  /**
   * Answers the operation, as bytes to send: written by the answer writer
   * (server/execution/json/answerWriter.ts) when it can write them with `records`, else executed
   * and then written; with its errors when it has some (a RESPONSE_TOO_LARGE refusal when the
   * answer grew past MAX_RESPONSE_BYTES). Synchronous when every resolver is (ours are).
   * When the writer gives up, the execution takes the deadline's decisions the writer took, as a
   * second execution after graphql-jit does (see {@link usable}).
   *
   * @param deadline the execution's root value (server/execution/deadline.ts startDeadline)
   * @param variables the request's variables, as sent; they passed the checks
   * @param records the record bytes cache, or null when it is turned off (always executes)
   */
  answer(deadline: Deadline, context: unknown, variables: SentVariables, records: RecordBytesCache | null): Answer | Promise<Answer>;
}

/** The cost of an operation and the estimated bytes of its answer, with some variables and sizes. */
export interface Measure {
  readonly cost: number;
  readonly bytes: number;
}

/** A prepared operation as the engine keeps it: it can measure other variables. */
export interface CachedOperation extends PreparedOperation {
  /** The cost and estimated answer bytes with these variables and sizes, or null when the variables do not coerce. */
  measure(variables: SentVariables, sizes: AnswerSizes): Measure | null;
}

/** What preparing an operation needs of the engine's options. */
export interface OperationOptions {
  /** The schema variables are coerced and costs counted with. */
  schema: GraphQLSchema;
  /** The schema operations execute on (with the deadline of server/execution/deadline.ts). */
  executableSchema: GraphQLSchema;
  limits: Pick<QueryLimits, 'maxResponseBytes'>;
  jit: boolean;
  formatError: FormatError;
  /** The writer of every answer's bytes (one answer at a time). */
  out: JsonWriter;
}

/** Variables as sent, coerced, and what they measure with the sizes they were last measured with. */
interface Coercion {
  readonly variables: Readonly<Record<string, unknown>>;
  measure: Measure;
  sizes: AnswerSizes;
}

/** The coerced variables of an operation without variable definitions. */
const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The JSON text of variables as sent, by which their coercion is remembered; undefined when they
 * hold a number JSON writes as `null` (Infinity or NaN: a JSON number too large for a double
 * parses to Infinity), which graphql-js refuses where it takes null, so the two must not share a
 * coercion. Only a text with a `null` in it needs the walk that tells.
 */
function variablesText(variables: object): string | undefined {
  const text = JSON.stringify(variables);
  return text.includes('null') && holdsUnwritableNumber(variables) ? undefined : text;
}

function holdsUnwritableNumber(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsUnwritableNumber);
}

/**
 * @param checked what the checks made of the request that prepared the operation
 * @param sent that request's variables, as sent, which `checked` coerced and counted the cost with
 * @param sizes those `checked` estimated the answer's bytes with
 */
export function prepareOperation(
  checked: CheckedOperation,
  operationName: string | null | undefined,
  sent: SentVariables,
  sizes: AnswerSizes,
  options: OperationOptions,
): CachedOperation {
  const { document, operation } = checked;
  const { maxResponseBytes } = options.limits;
  const label = operationLabel(operation);
  const variables = createVariables(checked, sent, sizes, options.schema);
  const run = createRunner(document, operationName, label, options);
  let writer: AnswerWriter | null | undefined;
  let answers = 0;
  return {
    document,
    operation,
    label,
    measure: variables.measure,
    answer(deadline, context, sentVariables, records) {
      if (records && writer === undefined) writer = label === 'introspection' ? null : compileAnswerWriter(options.executableSchema, document, operation, options.out);
      const coerced = records && writer ? variables.coerce(sentVariables) : undefined;
      if (!coerced) return run(deadline, context, sentVariables);
      const recording = new RecordingDeadline(deadline);
      const keep = ++answers >= KEEP_RECORDS_AT_ANSWER ? records : null;
      let bytes: Buffer | null;
      try {
        bytes = writer!.write(recording, context, coerced, keep, maxResponseBytes);
      } catch (error) {
        if (error instanceof AnswerTooLargeError) return tooLargeAnswer(maxResponseBytes, options.formatError);
        throw error;
      }
      return bytes ? { bytes } : run(recording.replay(), context, sentVariables);
    },
  };
}

/** An operation's variables: coerced and measured once per text sent (see the comments inside). */
function createVariables(checked: CheckedOperation, sent: SentVariables, sizes: AnswerSizes, schema: GraphQLSchema) {
  const { document, operation } = checked;
  const definitions = operation.variableDefinitions ?? [];
  const checkedMeasure: Measure = { cost: checked.cost, bytes: checked.bytes };
  const root = schema.getRootType(operation.operation) ?? undefined;
  // The cost depends on the variables alone, so it is remembered by their JSON text as sent, with
  // the coerced variables the answer writer needs: that skips counting (a walk of the whole
  // document) and coercing them (graphql-js's getVariableValues, most of what preparing a known
  // document with variables cost). Those of the request that prepared it are known already.
  const coercions = new Map<string, Coercion>();
  // Without variable definitions every request coerces to {}: one coercion serves them all.
  const fixed: Coercion | undefined = definitions.length === 0 ? { variables: NO_VARIABLES, measure: checkedMeasure, sizes } : undefined;
  const keepCoercion = (text: string, coercion: Coercion) => {
    if (text.length > MAX_REMEMBERED_VARIABLES_CHARS) return;
    if (coercions.size >= COSTS_PER_OPERATION) coercions.clear();
    coercions.set(text, coercion);
  };
  // Variables sent anew are coerced, but the cost reads only those given as a `limit` (or a search's q and areas), so it is
  // also remembered by their values: the documents of one template, as a map client sends them,
  // differ in their points and rarely in their page size. Those variables are looked for on the
  // first miss: most operations only ever meet the variables remembered above.
  // Measures are those of one snapshot's sizes, forgotten for another's.
  let limitVariables: string[] | undefined;
  const measures = new Map<string, Measure>();
  let measuredWith = sizes;
  const measureWith = (variables: Readonly<Record<string, unknown>>, current: AnswerSizes): Measure => {
    if (current !== measuredWith) {
      measures.clear();
      measuredWith = current;
    }
    limitVariables ??= costVariables(document);
    // As JSON: a search's q and areas are text and lists, which a plain join would confuse.
    const key = JSON.stringify(limitVariables.map((name) => variables[name] ?? null));
    let measure = measures.get(key);
    if (measure === undefined) {
      measure = {
        cost: measureCost(schema, document, operation, variables),
        bytes: estimateAnswerBytes(schema, document, operation, variables, current),
      };
      if (measures.size >= COSTS_PER_OPERATION) measures.clear();
      measures.set(key, measure);
    }
    return measure;
  };
  const sentText = fixed === undefined ? variablesText(sent ?? {}) : undefined;
  if (sentText !== undefined) keepCoercion(sentText, { variables: checked.variables, measure: checkedMeasure, sizes });

  // The variables object last looked up, and what it coerced to: a request looks its variables up
  // twice (measured, then coerced for the answer), and a body the route knew already brings back
  // the same frozen object (server/http/graphql/knownBodies.ts). The same object has the same text:
  // variables are the client's, read and never written.
  let lastGiven: object | undefined;
  let lastCoercion: Coercion | null = null;

  /** The variables coerced, or null when they do not coerce. */
  const coercionOf = (variables: SentVariables, current: AnswerSizes): Coercion | null => {
    if (fixed !== undefined) return fixed;
    if (variables != null && variables === lastGiven) return lastCoercion;
    const given = variables ?? {};
    const text = variablesText(given);
    let coercion = (text !== undefined && coercions.get(text)) || null;
    if (coercion === null) {
      const coerced = getVariableValues(schema, definitions, given, { maxErrors: 20 });
      // Variables the arguments refuse are not coerced either: the checker words the refusal.
      if (coerced.errors || (root !== undefined && checkArguments(root, document, operation, coerced.coerced, argumentReaders).length > 0)) return null;
      coercion = { variables: coerced.coerced, measure: measureWith(coerced.coerced, current), sizes: current };
      if (text !== undefined) keepCoercion(text, coercion);
    }
    lastGiven = given;
    lastCoercion = coercion;
    return coercion;
  };

  return {
    measure(variables: SentVariables, current: AnswerSizes): Measure | null {
      const coercion = coercionOf(variables, current);
      if (coercion === null) return null;
      if (coercion.sizes !== current) {
        coercion.measure = measureWith(coercion.variables, current);
        coercion.sizes = current;
      }
      return coercion.measure;
    },
    /** The variables coerced (the sizes do not matter here), or undefined when they do not coerce. */
    coerce(variables: SentVariables): Readonly<Record<string, unknown>> | undefined {
      return coercionOf(variables, measuredWith)?.variables;
    },
  };
}

/** Executes an operation into its answer: on graphql-js, then compiled by graphql-jit from its second execution. */
function createRunner(document: DocumentNode, operationName: string | null | undefined, label: string, options: OperationOptions) {
  const { executableSchema, formatError } = options;
  const { maxResponseBytes } = options.limits;
  let executions = 0;
  // Introspection always runs on graphql-js: it is rare and costly to compile.
  let compiled: CompiledQuery | null | undefined = options.jit && label !== 'introspection' ? undefined : null;
  const written = (result: ExecutionResult) => answerOf(result, maxResponseBytes, formatError, options.out);
  const executeJs = (deadline: Deadline, context: unknown, variables: SentVariables) =>
    execute({ schema: executableSchema, document, operationName, variableValues: variables, contextValue: context, rootValue: deadline });

  function runOperation(deadline: Deadline, context: unknown, variables: SentVariables): ExecutionResult | Promise<ExecutionResult> {
    if (compiled === undefined && ++executions >= COMPILE_AT_EXECUTION) {
      // Leaves are copied as they are: the serializers of String, Int, Float and Boolean return a
      // value of their own kind unchanged, every other leaf is JSON (engine.test.ts fails if an
      // enum or ID joins them), and records passed server/snapshot/validateRecord.ts, which checks
      // each scalar as graphql-js serializes it. A null in a non-null field is still an error.
      const result = compileQuery(executableSchema, document, operationName ?? undefined, { disableLeafSerialization: true });
      compiled = isCompiledQuery(result) ? result : null;
    }
    if (!compiled) return executeJs(deadline, context, variables);
    const recording = new RecordingDeadline(deadline);
    const result = compiled.query(recording, context, variables);
    if (isPromise(result)) return result.then((settled) => usable(settled) ?? executeJs(recording.replay(), context, variables));
    return usable(result) ?? executeJs(recording.replay(), context, variables);
  }

  return (deadline: Deadline, context: unknown, variables: SentVariables): Answer | Promise<Answer> => {
    const result = runOperation(deadline, context, variables);
    return isPromise(result) ? result.then(written) : written(result);
  };
}

/**
 * A document answered as its template with its literals as variables. An answer with errors is
 * thrown away and the document itself executed by graphql-js (with the deadline's decisions of
 * the first run replayed): errors carry the `locations` of fields in the document sent, which
 * the template's text has moved. An answer without errors is the same either way.
 */
export function literalOperation(
  template: CachedOperation,
  document: DocumentNode,
  request: { operationName?: string | null | undefined; variables?: SentVariables },
  variables: Readonly<Record<string, unknown>>,
  options: OperationOptions,
): PreparedOperation {
  const { executableSchema } = options;
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const written = (result: ExecutionResult) => answerOf(result, options.limits.maxResponseBytes, options.formatError, options.out);
  return {
    document,
    operation,
    label: template.label,
    answer(deadline, context, _sent, records) {
      const recording = new RecordingDeadline(deadline);
      // The refusal of an answer too large has no locations; an answer with other errors is
      // executed again, then written.
      const exact = (answer: Answer): Answer | Promise<Answer> => {
        if (!answer.errors || isTooLarge(answer)) return answer;
        const executed = execute({
          schema: executableSchema,
          document,
          operationName: request.operationName,
          variableValues: request.variables,
          contextValue: context,
          rootValue: recording.replay(),
        });
        return isPromise(executed) ? executed.then(written) : written(executed);
      };
      const answer = template.answer(recording, context, variables, records);
      return isPromise(answer) ? answer.then(exact) : exact(answer);
    },
  };
}

/**
 * A jit result as graphql-js would give it, or undefined when graphql-js must execute again. They
 * agree on a result without errors and on one with a single GraphQLError thrown by a resolver,
 * once the keys are in graphql-js's order. Otherwise jit drops the locations of other errors,
 * gives its own errors no original error (they would reach the client unmasked) and keeps running
 * the siblings of a failed non-null field; graphql-js then executes again with the deadline's
 * decisions replayed, so a run that hit the deadline can take up to twice its budget.
 */
function usable(result: ExecutionResult): ExecutionResult | undefined {
  if (!result.errors) return result;
  if (result.errors.length === 1 && isGraphQLError(result.errors[0]!.originalError)) return { errors: result.errors as GraphQLError[], data: result.data };
  return undefined;
}

/** The metrics label of an operation: its one root field, `multiple`, or `introspection`. */
export function operationLabel(operation: OperationDefinitionNode): string {
  const fields = new Set<string>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return 'multiple';
    if (selection.name.value !== '__typename') fields.add(selection.name.value);
  }
  // Only meta-fields (`__schema`, `__type`, `__typename`): answered from the schema alone.
  if ([...fields].every((name) => name === '__schema' || name === '__type')) return 'introspection';
  return fields.size === 1 ? [...fields][0]! : 'multiple';
}

/** By its tag, as server/http/formatError.ts tells them: graphql ships two builds whose classes differ. */
function isGraphQLError(value: unknown): boolean {
  return Object.prototype.toString.call(value) === '[object GraphQLError]';
}
