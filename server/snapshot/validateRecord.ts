import {
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';

/** Checks one record; returns `null` when it is valid, otherwise one message naming the first problem. */
export type RecordValidator = (record: unknown) => string | null;

export interface RecordValidatorOptions {
  /**
   * Fields of the type that the server computes: at query time (`distance`, `distance_km`) or
   * when it builds its store (a winter route's `latitude`, `longitude`).
   * Records must not carry them. Each must be a nullable field of the type.
   */
  computedFields?: readonly string[];
  /**
   * Keys records may carry beyond the type, for the server's own use (ActivityRecord's
   * `attributeValues`). Their values are not checked. None may be a field of the type.
   */
  extraFields?: readonly string[];
}

/**
 * Compiles a validator that checks snapshot records against the object type `typeName` of
 * `schema`, so the record shape is defined once, in schema.graphql.
 *
 * Rules: every field of the type must be present as an own key (a missing key is an error even
 * for a nullable field, so drift between sync and schema is caught); non-null fields must not be
 * null; scalars are checked by JS type (Int: 32-bit integer as graphql-js serializes it, Float:
 * finite number, String, Boolean, JSON: anything); lists element by element; object types
 * recursively; any other key is an error. Computed and extra fields apply to the top level only.
 *
 * Messages name the path with dots and `[i]`: `field "images[2].url": expected String!, found number`,
 * `missing field "summary.isActive"`, `unknown field "supplier.website"`.
 *
 * The type walk is compiled into closures once; the returned function does no schema lookups.
 *
 * @throws Error if `typeName` is not an object type of the schema, an option names a field that
 *   does not fit, or the type uses a kind this validator cannot check (enums, interfaces, unions,
 *   scalars other than Int, Float, String, Boolean and JSON).
 */
export function createRecordValidator(
  schema: GraphQLSchema,
  typeName: string,
  options: RecordValidatorOptions = {},
): RecordValidator {
  const type = schema.getType(typeName);
  if (!type) throw new Error(`createRecordValidator: unknown type "${typeName}"`);
  if (!isObjectType(type)) throw new Error(`createRecordValidator: "${typeName}" is not an object type`);

  const schemaFields = type.getFields();
  const computed = new Set(options.computedFields);
  for (const name of computed) {
    const field = schemaFields[name];
    if (!field) throw new Error(`computed field "${typeName}.${name}" is not a field of the type`);
    if (isNonNullType(field.type)) {
      throw new Error(`computed field "${typeName}.${name}" is ${String(field.type)}; it must be nullable`);
    }
  }
  const extras = new Set(options.extraFields);
  for (const name of extras) {
    if (schemaFields[name]) throw new Error(`extra field "${typeName}.${name}" is already a field of the type`);
  }

  const checkRoot = new Compiler().object(type, computed, extras);
  return (record) => {
    if (!isPlainObject(record)) return `expected object of type ${typeName}, found ${describe(record)}`;
    const fault = checkRoot(record);
    return fault && fault.message();
  };
}

type Check = (value: unknown) => Fault | null;
type ObjectCheck = (value: Record<string, unknown>) => Fault | null;

/** Scalars the snapshot uses, by name. Int follows graphql-js, which serializes only 32-bit integers. */
const SCALAR_TESTS: Record<string, (value: unknown) => boolean> = {
  Int: (v) => typeof v === 'number' && (v | 0) === v,
  Float: (v) => typeof v === 'number' && Number.isFinite(v),
  String: (v) => typeof v === 'string',
  Boolean: (v) => typeof v === 'boolean',
  JSON: () => true,
};

const NONE: ReadonlySet<string> = new Set();

/** Builds checks; nested object types are compiled once each and shared. */
class Compiler {
  private readonly objects = new Map<GraphQLObjectType, ObjectCheck>();

  /**
   * Checks an object against `type`. Records must not carry `computed` fields; `extras` are
   * allowed but unchecked keys.
   */
  object(type: GraphQLObjectType, computed: ReadonlySet<string>, extras: ReadonlySet<string>): ObjectCheck {
    const fields = Object.values(type.getFields()).filter((field) => !computed.has(field.name));
    const names = fields.map((field) => field.name);
    const checks = fields.map((field) => this.type(field.type));
    const count = names.length;
    const allowed = new Set([...names, ...extras]);
    return (obj) => {
      for (let i = 0; i < count; i++) {
        const name = names[i]!;
        const value = Object.hasOwn(obj, name) ? obj[name] : undefined;
        if (value === undefined) return new Fault('missing').at(name);
        const fault = checks[i]!(value);
        if (fault) return fault.at(name);
      }
      // Every field is present, so a surplus key is one the type does not have.
      const keys = Object.keys(obj);
      if (keys.length === count) return null;
      for (const key of keys) {
        if (allowed.has(key)) continue;
        return new Fault(computed.has(key) ? 'computed' : 'unknown').at(key);
      }
      return null;
    };
  }

  private type(type: GraphQLOutputType): Check {
    const expected = String(type);
    if (isNonNullType(type)) {
      const inner = this.nullable(type.ofType, expected);
      return (v) => (v === null ? new Fault('type', expected, v) : inner(v));
    }
    const inner = this.nullable(type, expected);
    return (v) => (v === null ? null : inner(v));
  }

  /** Checks a non-null value against `type`; `expected` is the type as written at the field. */
  private nullable(type: GraphQLOutputType, expected: string): Check {
    if (isListType(type)) {
      const item = this.type(type.ofType);
      return (v) => {
        if (!Array.isArray(v)) return new Fault('type', expected, v);
        for (let i = 0; i < v.length; i++) {
          const fault = item(v[i]);
          if (fault) return fault.at(i);
        }
        return null;
      };
    }
    if (isObjectType(type)) {
      const check = this.shared(type);
      return (v) => (isPlainObject(v) ? check(v) : new Fault('type', expected, v));
    }
    if (isScalarType(type)) {
      const test = SCALAR_TESTS[type.name];
      if (!test) throw new Error(`cannot validate scalar "${type.name}": no check for it`);
      return (v) => (test(v) ? null : new Fault('type', expected, v));
    }
    throw new Error(`cannot validate "${String(type)}": only scalars, lists and object types are supported`);
  }

  private shared(type: GraphQLObjectType): ObjectCheck {
    let check = this.objects.get(type);
    if (!check) {
      // Registered before compiling so a type that contains itself refers to this entry.
      let compiled: ObjectCheck | undefined;
      check = (v) => compiled!(v);
      this.objects.set(type, check);
      compiled = this.object(type, NONE, NONE);
    }
    return check;
  }
}

/** The first problem found; the path is collected innermost first while the checks unwind. */
class Fault {
  private readonly path: (string | number)[] = [];

  constructor(
    private readonly kind: 'type' | 'missing' | 'unknown' | 'computed',
    private readonly expected?: string,
    private readonly found?: unknown,
  ) {}

  at(segment: string | number): this {
    this.path.push(segment);
    return this;
  }

  message(): string {
    let path = '';
    for (let i = this.path.length - 1; i >= 0; i--) {
      const segment = this.path[i]!;
      path += typeof segment === 'number' ? `[${segment}]` : path === '' ? segment : `.${segment}`;
    }
    switch (this.kind) {
      case 'missing':
        return `missing field "${path}"`;
      case 'unknown':
        return `unknown field "${path}"`;
      case 'computed':
        return `field "${path}" is computed by the server and must be absent`;
      case 'type':
        return `field "${path}": expected ${this.expected}, found ${describe(this.found)}`;
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names a value's JSON kind; numbers carry their value, since a number can fail Int or Float. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return `number ${value}`;
  return typeof value;
}
