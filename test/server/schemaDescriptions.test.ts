/**
 * The descriptions of schema.graphql are the API's documentation: GraphiQL, codegen and
 * graphql-inspector read them through introspection, so the served schema must keep every one.
 */

import { Kind, parse, type DefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSdl } from '../../server/execution/schema.ts';
import { startTestApi, type TestApi } from '../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../helpers/tinySnapshot.ts';

let api: TestApi;
let tiny: TinySnapshot;

// Introspection reads the schema, not the records: the tiny snapshot serves it.
beforeAll(async () => {
  tiny = await createTinySnapshot();
  api = await startTestApi({ DATA_DIR: tiny.dir });
});

afterAll(async () => {
  await api.close();
  await tiny.remove();
});

/** `Type` or `Type.field` (fields, input fields and enum values alike) → description, as the SDL gives them. */
function sdlDescriptions(): Map<string, string | null> {
  const descriptions = new Map<string, string | null>();
  for (const definition of parse(readSdl()).definitions as DefinitionNode[]) {
    if (!('name' in definition) || definition.name === undefined || !('description' in definition)) continue;
    const typeName = definition.name.value;
    descriptions.set(typeName, definition.description?.value ?? null);
    const members = 'fields' in definition ? definition.fields : 'values' in definition ? definition.values : undefined;
    for (const member of members ?? []) descriptions.set(`${typeName}.${member.name.value}`, member.description?.value ?? null);
  }
  return descriptions;
}

interface IntrospectedType {
  name: string;
  kind: string;
  description: string | null;
  fields: { name: string; description: string | null }[] | null;
  inputFields: { name: string; description: string | null }[] | null;
  enumValues: { name: string; description: string | null }[] | null;
}

/** The same map, read from the running server by introspection over HTTP. */
async function servedDescriptions(): Promise<Map<string, string | null>> {
  const answer = await api.query(`{
    __schema {
      types {
        name kind description
        fields(includeDeprecated: true) { name description }
        inputFields { name description }
        enumValues(includeDeprecated: true) { name description }
      }
    }
  }`);
  expect(answer.errors).toBeUndefined();
  const descriptions = new Map<string, string | null>();
  for (const type of answer.data!.__schema.types as IntrospectedType[]) {
    // Built-in types (String, __Type…) are graphql-js's, not the SDL's.
    if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
    descriptions.set(type.name, type.description);
    for (const member of [...(type.fields ?? []), ...(type.inputFields ?? []), ...(type.enumValues ?? [])]) {
      descriptions.set(`${type.name}.${member.name}`, member.description);
    }
  }
  return descriptions;
}

describe('the served schema', () => {
  it('gives every type, field and enum value the description schema.graphql gives it', async () => {
    const expected = sdlDescriptions();
    expect(expected.get('JSON')).toMatch(/^Arbitrary JSON value/);
    expect(Object.fromEntries(await servedDescriptions())).toEqual(Object.fromEntries(expected));
  });

  it('describes the JSON scalar', async () => {
    const answer = await api.query('{ __type(name: "JSON") { kind description } }');
    expect(answer).toEqual({ data: { __type: { kind: 'SCALAR', description: sdlDescriptions().get('JSON') } } });
  });
});
