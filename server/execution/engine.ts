/**
 * The engine: a request's document is parsed, checked against the limits (server/execution/limits.ts)
 * and kept in the operation cache, then executed (compiled by graphql-jit from its second
 * execution on) or written by the answer writer. Where it sits in a request, and how its cache
 * relates to the others: docs/architecture.md.
 */

import {
  execute,
  getVariableValues,
  Kind,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { compileAnswerWriter, type AnswerWriter } from './json/answerWriter.ts';
import type { AnswerSizes } from '../snapshot/answerSizes.ts';
import type { QueryLimits } from '../config/config.ts';
import type { Deadline } from './deadline.ts';
import { isPromise } from '../util/isPromise.ts';
import { AnswerTooLargeError, jsonBytes } from './json/jsonBytes.ts';
import { costVariables, estimateAnswerBytes, measureCost, responseTooLarge, type CheckedOperation, type QueryChecker } from './limits.ts';
import { h32 } from '../util/xxhash.ts';
import { findHoles, templateVariables, writeTemplate, type Holes, type Template } from './literalsAsVariables.ts';
import type { RecordBytesCache } from './json/recordBytesCache.ts';

/** Characters of document text the cache may hold per entry of its size, on average (see {@link createOperationCache}). */
export const DOCUMENT_CHARS_PER_ENTRY = 512;

/**
 * Coerced variables with their cost remembered per operation, by the variables sent, and costs by
 * the values of the variables given as a `limit`; each forgotten all at once when full.
 */
const COSTS_PER_OPERATION = 32;

/** Longest JSON text of the variables sent whose cost and coercion are remembered: the key is that text. */
const MAX_REMEMBERED_VARIABLES_CHARS = 1024;

/** Hashes of documents requested once that the cache notes, per entry of its size. */
const SEEN_ONCE_PER_ENTRY = 4;

/** Executions of an operation before it is compiled: a document used once is not worth compiling. */
const COMPILE_AT_EXECUTION = 2;

/**
 * The answer of an operation from which on its writer keeps records' bytes: the parts of a
 * document sent once (a query builder's) would be copied into the record bytes cache and
 * collected, never copied out.
 */
const KEEP_RECORDS_AT_ANSWER = 2;

/**
 * The codes of refusals that depend on the document and operation name alone, the only ones
 * cached: QUERY_TOO_COMPLEX is shared with the cost refusal, which depends on the variables, and
 * RESPONSE_TOO_LARGE depends on the variables and the snapshot.
 */
const DOCUMENT_ERROR_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'OPERATION_RESOLUTION_FAILURE']);

/** Whether a refusal holds whatever the variables: every error's code is one of DOCUMENT_ERROR_CODES. */
function dependsOnDocumentAlone(errors: readonly GraphQLError[]): boolean {
  return errors.every((error) => DOCUMENT_ERROR_CODES.has(String(error.extensions.code)));
}

/** A checked operation, ready to execute with any variables that pass the checks. */
export interface PreparedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** Metrics label: the operation's one root field, `multiple`, or `introspection`. */
  readonly label: string;
  /**
   * Answers the operation: with the bytes of a successful answer, written by the answer writer
   * (server/execution/json/answerWriter.ts) when it can write them with `records`, else executed and then
   * written; with the execution's result when it has errors (a RESPONSE_TOO_LARGE refusal when
   * the answer grew past MAX_RESPONSE_BYTES). Synchronous when every resolver is (ours are).
   * When the writer gives up, the execution takes the deadline's decisions the writer took, as a
   * second execution after graphql-jit does (see {@link usable}).
   *
   * @param deadline the execution's root value (server/execution/deadline.ts startDeadline)
   * @param variables the request's variables, as sent; they passed the checks
   * @param records the record bytes cache, or null when it is turned off (always executes)
   */
  answer(
    deadline: Deadline,
    context: unknown,
    variables: Readonly<Record<string, unknown>> | null | undefined,
    records: RecordBytesCache | null,
  ): Buffer | ExecutionResult | Promise<Buffer | ExecutionResult>;
}

/** The outcome of {@link OperationCache.prepare}: an operation with its cost, or the errors to answer with. */
export type PreparedRequest =
  | { readonly operation: PreparedOperation; readonly cost: number; readonly errors?: undefined }
  | { readonly errors: readonly GraphQLError[] };

export interface OperationCache {
  /**
   * Checks a request against the limits, from the cache when the document was seen before.
   * Errors are exactly those of the checker of server/execution/limits.ts.
   * @param sizes those of the snapshot the request is answered from (its store's)
   */
  prepare(
    request: {
      query: string;
      operationName?: string | null | undefined;
      variables?: Readonly<Record<string, unknown>> | null | undefined;
    },
    sizes: AnswerSizes,
  ): PreparedRequest;
  /** Operations (and refusals) held now. */
  readonly size: number;
}

export interface OperationCacheOptions {
  /** The schema the checker validates against (for variable coercion and cost). */
  schema: GraphQLSchema;
  /** The schema operations execute on (with the deadline of server/execution/deadline.ts). */
  executableSchema: GraphQLSchema;
  /** The checker of server/execution/limits.ts. */
  check: QueryChecker;
  limits: Pick<QueryLimits, 'maxCost' | 'maxTokens' | 'maxResponseBytes'>;
  /** Most operations (and refusals) kept; 0 keeps none (every request is checked in full and runs on graphql-js). */
  maxEntries: number;
  /** Compile operations with graphql-jit; false runs every operation on graphql-js. */
  jit: boolean;
}

/**
 * Creates an operation cache. Once it holds more than `maxEntries`
 * operations, or more than `maxEntries` × {@link DOCUMENT_CHARS_PER_ENTRY} characters of
 * document text (a parsed document takes about 100 to 500 bytes per token, so large documents
 * are bounded by their size rather than their number), documents leave with their operations:
 * those not used since they were kept (or last given a second chance) first, while one that was
 * used goes back to the end of the line once (CLOCK, an approximation of least recently used
 * that costs a hit no reordering). A document longer than the whole budget is never kept.
 */
export function createOperationCache(options: OperationCacheOptions): OperationCache {
  const { check, maxEntries } = options;
  const maxChars = maxEntries * DOCUMENT_CHARS_PER_ENTRY;
  // By document text, then by operation name (null: none given).
  const documents = new Map<string, DocumentEntry>();
  let operations = 0;
  let chars = 0;

  // Hashes of the documents (and templates) requested once, by operation name: a document is kept
  // from its second request on, so a client that never repeats one (a query builder) cannot fill
  // the cache with operations used once and push out those used again and again.
  const seenOnce = new Set<string>();

  /** Whether a document (or template) was requested before; if not, notes that it now has been. */
  function seenBefore(text: string, operationName: string | null): boolean {
    // A cache that keeps nothing has nothing to decide.
    if (maxEntries === 0) return false;
    const key = `${h32(text)} ${operationName ?? ''}`;
    if (seenOnce.delete(key)) return true;
    // A collision of hashes only keeps a document on its first request: the cost of a collision
    // is one early entry, never a wrong answer (entries are keyed by the whole text).
    if (seenOnce.size >= maxEntries * SEEN_ONCE_PER_ENTRY) seenOnce.clear();
    seenOnce.add(key);
    return false;
  }

  function remember(query: string, operationName: string | null, outcome: Outcome): void {
    if (query.length > maxChars) return;
    let entry = documents.get(query);
    if (entry === undefined) {
      documents.set(query, (entry = { byName: new Map(), used: false }));
      chars += query.length;
    }
    if (!entry.byName.has(operationName)) operations++;
    entry.byName.set(operationName, outcome);
    for (const [text, candidate] of documents) {
      if (operations <= maxEntries && chars <= maxChars) break;
      // Map keeps insertion order: a document used since it was kept gets a second chance at the end.
      documents.delete(text);
      if (candidate.used) {
        candidate.used = false;
        documents.set(text, candidate);
      } else {
        operations -= candidate.byName.size;
        chars -= text.length;
      }
    }
  }

  /** Checks a document not in the cache, and keeps what the checks made of it when `keep`. */
  function checkUnseen(request: CacheRequest, name: string | null, parsed: DocumentNode | undefined, keep: boolean, sizes: AnswerSizes): PreparedRequest {
    const checked = check({ ...request, document: parsed }, sizes);
    if (checked.errors) {
      if (keep && dependsOnDocumentAlone(checked.errors)) {
        remember(request.query, name, { refusal: checked.errors });
      }
      return checked;
    }
    const operation = prepareOperation(checked, request.operationName, request.variables, sizes, options);
    if (keep) remember(request.query, name, { operation });
    return { operation, cost: checked.cost };
  }

  /**
   * Prepares a document not in the cache from the template of its literals
   * (server/execution/literalsAsVariables.ts), or returns undefined for the checks to take it: when it has no
   * template, when its template is not built and may not be (`mayBuild`: a document requested
   * for the first time, whose template another document was requested with before; a one-off
   * document is not worth a second check), when the template cannot be used, or when this
   * document's literals, cost or estimated answer fail (the checks word the refusal).
   */
  function prepareFromTemplate(
    request: CacheRequest,
    name: string | null,
    parsed: DocumentNode,
    mayBuild: boolean,
    sizes: AnswerSizes,
  ): PreparedRequest | undefined {
    const holes = findHoles(parsed, request.query);
    if (!holes) return undefined;
    const entry = documents.get(holes.key);
    const outcome = entry?.byName.get(name);
    let templated: Templated;
    let variables: Record<string, unknown> | null;
    if (outcome === undefined) {
      if (!mayBuild || !seenBefore(holes.key, name)) return undefined;
      const built = checkTemplate(request, name, parsed, holes, sizes);
      if (!built) return undefined;
      ({ templated, variables } = built);
    } else {
      // Anything else under a template's key is a refusal of a query sent with U+0000 in it.
      if (outcome.template === undefined || outcome.template === UNUSABLE) return undefined;
      entry!.used = true;
      templated = outcome.template;
      variables = templateVariables(templated.template, holes, request.variables);
    }
    if (!variables) return undefined;
    const measure = templated.operation.measure(variables, sizes);
    if (!withinLimits(measure)) return undefined;
    return { operation: literalOperation(templated.operation, parsed, request, variables, options), cost: measure.cost };
  }

  /**
   * Writes and checks the template of the second document of it requested, and keeps it, or
   * keeps that it cannot be used. Returns the template with this document's literals as its
   * variables (checked with them), or undefined when it cannot be used for this document.
   */
  function checkTemplate(
    request: CacheRequest,
    name: string | null,
    parsed: DocumentNode,
    holes: Holes,
    sizes: AnswerSizes,
  ): { templated: Templated; variables: Record<string, unknown> } | undefined {
    const template = writeTemplate(options.schema, parsed, request.query, holes);
    if (!template) {
      remember(holes.key, name, { template: UNUSABLE });
      return undefined;
    }
    const variables = templateVariables(template, holes, request.variables);
    if (!variables) return undefined;
    const checked = check({ query: template.query, operationName: request.operationName, variables }, sizes);
    if (checked.errors) {
      // The template's own refusals hold for every document of it; the others (the variables
      // sent, the cost of these literals, a limit the template's longer text reaches) may not.
      if (dependsOnDocumentAlone(checked.errors)) {
        remember(holes.key, name, { template: UNUSABLE });
      }
      return undefined;
    }
    const templated = { template, operation: prepareOperation(checked, request.operationName, variables, sizes, options) };
    remember(holes.key, name, { template: templated });
    return { templated, variables };
  }

  /** Whether a measure passes the limits the checker words the refusals of. */
  function withinLimits(measure: Measure | null): measure is Measure {
    return measure !== null && measure.cost <= options.limits.maxCost && measure.bytes <= options.limits.maxResponseBytes;
  }

  return {
    prepare(request, sizes) {
      const name = request.operationName ?? null;
      const document = documents.get(request.query);
      const cached = document?.byName.get(name);
      if (cached === undefined || cached.template !== undefined) {
        let parsed: DocumentNode | undefined;
        try {
          parsed = parse(request.query, { maxLexicalTokens: options.limits.maxTokens });
        } catch {
          // The checks word the refusal.
        }
        // A document requested again is kept under its text, unless its template (built from
        // other documents) answers it; one requested for the first time may have a template built.
        const again = seenBefore(request.query, name);
        return (parsed && prepareFromTemplate(request, name, parsed, !again, sizes)) || checkUnseen(request, name, parsed, again, sizes);
      }
      document!.used = true;
      if (cached.refusal) return { errors: cached.refusal };
      const prepared = cached.operation;
      const measure = prepared.measure(request.variables, sizes);
      // Bad variables, too high a cost or too large an answer: the whole checker runs again, so
      // a refusal reads exactly as it did the first time.
      if (!withinLimits(measure)) {
        const checked = check(request, sizes);
        return checked.errors ? checked : { operation: prepared, cost: checked.cost };
      }
      return { operation: prepared, cost: measure.cost };
    },
    get size() {
      return operations;
    },
  };
}

interface DocumentEntry {
  /** What the checks made of the document, per operation name (null: none given). */
  readonly byName: Map<string | null, Outcome>;
  /** Used since it was kept or last given a second chance. */
  used: boolean;
}

/** The cost of an operation and the estimated bytes of its answer, with some variables and sizes. */
interface Measure {
  readonly cost: number;
  readonly bytes: number;
}

/** Variables as sent, coerced, and what they measure with the sizes they were last measured with. */
interface Coercion {
  readonly variables: Readonly<Record<string, unknown>>;
  measure: Measure;
  sizes: AnswerSizes;
}

/** The coerced variables of an operation without variable definitions. */
const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/** A request as {@link OperationCache.prepare} takes it. */
type CacheRequest = Parameters<OperationCache['prepare']>[0];

/** A template that cannot be used: its documents are checked one by one. */
const UNUSABLE = 'unusable';

/** A checked template of literals and its operation. */
interface Templated {
  readonly template: Template;
  readonly operation: CachedOperation;
}

type Outcome =
  | { readonly operation: CachedOperation; readonly refusal?: undefined; readonly template?: undefined }
  | { readonly refusal: readonly GraphQLError[]; readonly template?: undefined }
  | { readonly template: Templated | typeof UNUSABLE; readonly refusal?: undefined; readonly operation?: undefined };

interface CachedOperation extends PreparedOperation {
  /** The cost and estimated answer bytes with these variables and sizes, or null when the variables do not coerce. */
  measure(variables: Readonly<Record<string, unknown>> | null | undefined, sizes: AnswerSizes): Measure | null;
}

/**
 * @param checked what the checks made of the request that prepared the operation
 * @param sent that request's variables, as sent, which `checked` coerced and counted the cost with
 * @param sizes those `checked` estimated the answer's bytes with
 */
function prepareOperation(
  checked: CheckedOperation,
  operationName: string | null | undefined,
  sent: Readonly<Record<string, unknown>> | null | undefined,
  sizes: AnswerSizes,
  options: OperationCacheOptions,
): CachedOperation {
  const { schema, executableSchema } = options;
  const { maxResponseBytes } = options.limits;
  const { document, operation } = checked;
  const label = operationLabel(operation);
  const definitions = operation.variableDefinitions ?? [];
  const checkedMeasure: Measure = { cost: checked.cost, bytes: checked.bytes };
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
  // Variables sent anew are coerced, but the cost reads only those given as a `limit`, so it is
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
    const key = limitVariables.map((name) => String(variables[name])).join(',');
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
  if (fixed === undefined) keepCoercion(JSON.stringify(sent ?? {}), { variables: checked.variables, measure: checkedMeasure, sizes });
  let executions = 0;
  // Introspection always runs on graphql-js: it is rare and costly to compile.
  let compiled: CompiledQuery | null | undefined = options.jit && label !== 'introspection' ? undefined : null;
  let writer: AnswerWriter | null | undefined;
  let answers = 0;

  /** The variables coerced, or null when they do not coerce. */
  const coerce = (variables: Readonly<Record<string, unknown>> | null | undefined, current: AnswerSizes): Coercion | null => {
    if (fixed !== undefined) return fixed;
    const given = variables ?? {};
    const text = JSON.stringify(given);
    const known = coercions.get(text);
    if (known !== undefined) return known;
    const coerced = getVariableValues(schema, definitions, given, { maxErrors: 20 });
    if (coerced.errors) return null;
    const coercion = { variables: coerced.coerced, measure: measureWith(coerced.coerced, current), sizes: current };
    keepCoercion(text, coercion);
    return coercion;
  };

  const written = (result: ExecutionResult) => writeResult(result, maxResponseBytes);

  const executeJs = (deadline: Deadline, context: unknown, variables: Readonly<Record<string, unknown>> | null | undefined) =>
    execute({ schema: executableSchema, document, operationName, variableValues: variables, contextValue: context, rootValue: deadline });

  /** Executes the operation, its result written as {@link written} does. */
  function executeOperation(deadline: Deadline, context: unknown, variables: Readonly<Record<string, unknown>> | null | undefined) {
    const result = runOperation(deadline, context, variables);
    return isPromise(result) ? result.then(written) : written(result);
  }

  function runOperation(
    deadline: Deadline,
    context: unknown,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): ExecutionResult | Promise<ExecutionResult> {
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

  return {
    document,
    operation,
    label,
    measure(variables, current) {
      const coercion = coerce(variables, current);
      if (coercion === null) return null;
      if (coercion.sizes !== current) {
        coercion.measure = measureWith(coercion.variables, current);
        coercion.sizes = current;
      }
      return coercion.measure;
    },
    answer(deadline, context, variables, records) {
      if (records && writer === undefined) writer = label === 'introspection' ? null : compileAnswerWriter(executableSchema, document, operation);
      // The sizes do not matter here: the coercion alone is used.
      const coerced = records && writer ? coerce(variables, measuredWith)?.variables : undefined;
      if (!coerced) return executeOperation(deadline, context, variables);
      const recording = new RecordingDeadline(deadline);
      const keep = ++answers >= KEEP_RECORDS_AT_ANSWER ? records : null;
      try {
        return writer!.write(recording, context, coerced, keep, maxResponseBytes) ?? executeOperation(recording.replay(), context, variables);
      } catch (error) {
        if (error instanceof AnswerTooLargeError) return { errors: [responseTooLarge(undefined, maxResponseBytes)] };
        throw error;
      }
    },
  };
}

/**
 * The bytes of a successful result; a result with errors as it is, and the refusal of a result
 * whose bytes pass `maxBytes` in their place.
 */
function writeResult(result: ExecutionResult, maxBytes: number): Buffer | ExecutionResult {
  if (result.errors) return result;
  try {
    return jsonBytes(result, maxBytes);
  } catch (error) {
    if (error instanceof AnswerTooLargeError) return { errors: [responseTooLarge(undefined, maxBytes)] };
    throw error;
  }
}

/**
 * A document answered as its template with its literals as variables. An answer with errors is
 * thrown away and the document itself executed by graphql-js (with the deadline's decisions of
 * the first run replayed): errors carry the `locations` of fields in the document sent, which
 * the template's text has moved. An answer without errors is the same either way.
 */
function literalOperation(
  template: CachedOperation,
  document: DocumentNode,
  request: CacheRequest,
  variables: Readonly<Record<string, unknown>>,
  options: Pick<OperationCacheOptions, 'executableSchema' | 'limits'>,
): PreparedOperation {
  const { executableSchema } = options;
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return {
    document,
    operation,
    label: template.label,
    answer(deadline, context, _sent, records) {
      const recording = new RecordingDeadline(deadline);
      // The template's answer without errors comes as bytes, and so does the refusal of one too
      // large, which has no locations; one with other errors is executed again, then written.
      const exact = (result: Buffer | ExecutionResult): Buffer | ExecutionResult | Promise<Buffer | ExecutionResult> => {
        if (Buffer.isBuffer(result) || !result.errors || isTooLarge(result)) return result;
        const executed = execute({
          schema: executableSchema,
          document,
          operationName: request.operationName,
          variableValues: request.variables,
          contextValue: context,
          rootValue: recording.replay(),
        });
        const write = (settled: ExecutionResult) => writeResult(settled, options.limits.maxResponseBytes);
        return isPromise(executed) ? executed.then(write) : write(executed);
      };
      const answer = template.answer(recording, context, variables, records);
      return isPromise(answer) ? answer.then(exact) : exact(answer);
    },
  };
}

/** Whether a result is the refusal of an answer too large ({@link writeResult}). */
function isTooLarge(result: ExecutionResult): boolean {
  return result.errors?.length === 1 && result.errors[0]!.extensions.code === 'RESPONSE_TOO_LARGE';
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
  if (result.errors.length === 1 && isGraphQLError(result.errors[0]!.originalError)) return { errors: result.errors, data: result.data };
  return undefined;
}

/**
 * A deadline that records its verdicts, so that a second execution takes the same decisions:
 * server/execution/deadline.ts reads `atMs` once before each root field starts, in execution order, and
 * compares it with the clock. The recording answers with the verdict of the real deadline
 * (+/-Infinity); its replay answers the recorded verdicts in turn, then the real deadline's.
 */
class RecordingDeadline implements Deadline {
  readonly #verdicts: boolean[] = [];

  constructor(readonly real: Deadline) {}

  get budgetMs(): number {
    return this.real.budgetMs;
  }

  get atMs(): number {
    const expired = performance.now() > this.real.atMs;
    this.#verdicts.push(expired);
    return expired ? -Infinity : Infinity;
  }

  replay(): Deadline {
    const verdicts = this.#verdicts;
    const real = this.real;
    let next = 0;
    return {
      budgetMs: real.budgetMs,
      get atMs() {
        const expired = verdicts[next++];
        if (expired === undefined) return real.atMs;
        return expired ? -Infinity : Infinity;
      },
    };
  }
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
