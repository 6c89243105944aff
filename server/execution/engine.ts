/**
 * The engine: a request's document is parsed, checked against the limits (server/execution/limits.ts)
 * and kept in its cache of operations (server/execution/documentCache.ts), then answered as bytes
 * (server/execution/preparedOperation.ts: executed, compiled by graphql-jit from its second
 * execution on, or written by the answer writer). Where it sits in a request, and how its cache
 * relates to the others: docs/architecture.md.
 */

import { parse, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { FormatError } from './answer.ts';
import type { AnswerSizes } from '../snapshot/answerSizes.ts';
import type { QueryLimits } from '../config/config.ts';
import type { QueryChecker } from './limits.ts';
import { DocumentCache } from './documentCache.ts';
import { JsonWriter } from './json/jsonWriter.ts';
import { findHoles, templateVariables, writeTemplate, type Holes, type Template } from './literalsAsVariables.ts';
import { literalOperation, prepareOperation, type CachedOperation, type Measure, type OperationOptions, type PreparedOperation, type SentVariables } from './preparedOperation.ts';

export { DOCUMENT_CHARS_PER_ENTRY } from './documentCache.ts';
export type { Answer, FormatError } from './answer.ts';
export type { PreparedOperation } from './preparedOperation.ts';

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

/** The outcome of {@link Engine.prepare}: an operation with its cost, or the errors to answer with. */
export type PreparedRequest =
  | { readonly operation: PreparedOperation; readonly cost: number; readonly errors?: undefined }
  | { readonly errors: readonly GraphQLError[] };

/** A request as {@link Engine.prepare} takes it. */
export interface EngineRequest {
  query: string;
  operationName?: string | null | undefined;
  variables?: SentVariables;
  /**
   * `query` parsed, having passed a DocumentChecker's checks (server/execution/limits.ts) already:
   * a trusted document's, checked once when its manifest was loaded. Such a document is never
   * parsed or validated again, and is kept from its first request on.
   */
  checked?: DocumentNode | undefined;
}

/** The steps of preparing a document the cache did not hold, as a trace records them. */
export interface PrepareSteps {
  /**
   * Called as each step ends: `parse` (the text into a document) and `validate` (the schema's
   * rules and the limits).
   * @param startedAt `performance.now()` at the start of the step
   */
  ran(step: 'parse' | 'validate', startedAt: number): void;
}

/** Checks requests and answers them as bytes, keeping what it checked and compiled. */
export interface Engine {
  /**
   * Checks a request against the limits, from the cache when the document was seen before.
   * Errors are exactly those of the checker of server/execution/limits.ts.
   * @param sizes those of the snapshot the request is answered from (its store's)
   * @param steps told of the parse and validation when they run (never for a cached document)
   */
  prepare(request: EngineRequest, sizes: AnswerSizes, steps?: PrepareSteps): PreparedRequest;
  /** Operations (and refusals) held now. */
  readonly size: number;
}

export interface EngineOptions {
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
  /** How an answer's errors are worded for the client (server/http/formatError.ts). */
  formatError: FormatError;
}

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

/** Creates the engine, its cache of operations bounded as {@link DocumentCache} says. */
export function createEngine(options: EngineOptions): Engine {
  const documents = new DocumentCache<Outcome>(options.maxEntries);
  // One writer for the engine's answers: writing is synchronous, so one answer at a time uses it.
  const operationOptions: EngineOptions & OperationOptions = { ...options, out: new JsonWriter() };
  const templates = createTemplates(documents, operationOptions);
  return {
    prepare(request, sizes, steps) {
      const name = request.operationName ?? null;
      const document = documents.get(request.query);
      const cached = document?.byName.get(name);
      if (cached === undefined || cached.template !== undefined) {
        if (request.checked) return checkUnseen(request, name, request.checked, true, sizes, true);
        return prepareUnseen(request, name, sizes, steps);
      }
      document!.used = true;
      if (cached.refusal) return { errors: cached.refusal };
      return prepareKnown(cached.operation, request, sizes);
    },
    get size() {
      return documents.size;
    },
  };

  /** Prepares a kept operation for these variables, or the checker's refusal of them. */
  function prepareKnown(prepared: CachedOperation, request: EngineRequest, sizes: AnswerSizes): PreparedRequest {
    const measure = prepared.measure(request.variables, sizes);
    // Bad variables, too high a cost or too large an answer: the whole checker runs again, so
    // a refusal reads exactly as it did the first time.
    if (!withinLimits(measure, options)) {
      const checked = options.check(request, sizes);
      return checked.errors ? checked : { operation: prepared, cost: checked.cost };
    }
    return { operation: prepared, cost: measure.cost };
  }

  /** Prepares a document not kept under its text: from a template of its literals, else checked in full. */
  function prepareUnseen(request: EngineRequest, name: string | null, sizes: AnswerSizes, steps: PrepareSteps | undefined): PreparedRequest {
    const parseStart = steps ? performance.now() : 0;
    let parsed: DocumentNode | undefined;
    try {
      parsed = parse(request.query, { maxLexicalTokens: options.limits.maxTokens });
    } catch {
      // The checks word the refusal.
    }
    const validateStart = steps ? performance.now() : 0;
    steps?.ran('parse', parseStart);
    // A document requested again is kept under its text, unless its template (built from
    // other documents) answers it; one requested for the first time may have a template built.
    const again = documents.seenBefore(request.query, name);
    const prepared = (parsed && templates.prepare(request, name, parsed, !again, sizes)) || checkUnseen(request, name, parsed, again, sizes);
    steps?.ran('validate', validateStart);
    return prepared;
  }

  /**
   * Checks a document not in the cache, and keeps what the checks made of it when `keep`.
   * @param valid `parsed` passed the checks of the document alone already
   */
  function checkUnseen(request: EngineRequest, name: string | null, parsed: DocumentNode | undefined, keep: boolean, sizes: AnswerSizes, valid = false): PreparedRequest {
    const checked = options.check({ query: request.query, operationName: request.operationName, variables: request.variables, document: parsed, valid }, sizes);
    if (checked.errors) {
      if (keep && dependsOnDocumentAlone(checked.errors)) documents.remember(request.query, name, { refusal: checked.errors });
      return checked;
    }
    const operation = prepareOperation(checked, request.operationName, request.variables, sizes, operationOptions);
    if (keep) documents.remember(request.query, name, { operation });
    return { operation, cost: checked.cost };
  }
}

/** Whether a measure passes the limits the checker words the refusals of. */
function withinLimits(measure: Measure | null, options: EngineOptions): measure is Measure {
  return measure !== null && measure.cost <= options.limits.maxCost && measure.bytes <= options.limits.maxResponseBytes;
}

/** Documents answered as the template of their literals (server/execution/literalsAsVariables.ts). */
function createTemplates(documents: DocumentCache<Outcome>, options: EngineOptions & OperationOptions) {
  /**
   * Writes and checks the template of the second document of it requested, and keeps it, or
   * keeps that it cannot be used. Returns the template with this document's literals as its
   * variables (checked with them), or undefined when it cannot be used for this document.
   */
  function checkTemplate(
    request: EngineRequest,
    name: string | null,
    parsed: DocumentNode,
    holes: Holes,
    sizes: AnswerSizes,
  ): { templated: Templated; variables: Record<string, unknown> } | undefined {
    const template = writeTemplate(options.schema, parsed, request.query, holes);
    if (!template) {
      documents.remember(holes.key, name, { template: UNUSABLE });
      return undefined;
    }
    const variables = templateVariables(template, holes, request.variables);
    if (!variables) return undefined;
    const checked = options.check({ query: template.query, operationName: request.operationName, variables }, sizes);
    if (checked.errors) {
      // The template's own refusals hold for every document of it; the others (the variables
      // sent, the cost of these literals, a limit the template's longer text reaches) may not.
      if (dependsOnDocumentAlone(checked.errors)) documents.remember(holes.key, name, { template: UNUSABLE });
      return undefined;
    }
    const templated = { template, operation: prepareOperation(checked, request.operationName, variables, sizes, options) };
    documents.remember(holes.key, name, { template: templated });
    return { templated, variables };
  }

  return {
    /**
     * Prepares a document not in the cache from the template of its literals, or returns
     * undefined for the checks to take it: when it has no template, when its template is not
     * built and may not be (`mayBuild`: a document requested for the first time, whose template
     * another document was requested with before; a one-off document is not worth a second
     * check), when the template cannot be used, or when this document's literals, cost or
     * estimated answer fail (the checks word the refusal).
     */
    prepare(request: EngineRequest, name: string | null, parsed: DocumentNode, mayBuild: boolean, sizes: AnswerSizes): PreparedRequest | undefined {
      const holes = findHoles(parsed, request.query);
      if (!holes) return undefined;
      const entry = documents.get(holes.key);
      const outcome = entry?.byName.get(name);
      let templated: Templated;
      let variables: Record<string, unknown> | null;
      if (outcome === undefined) {
        if (!mayBuild || !documents.seenBefore(holes.key, name)) return undefined;
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
      if (!withinLimits(measure, options)) return undefined;
      return { operation: literalOperation(templated.operation, parsed, request, variables, options), cost: measure.cost };
    },
  };
}
