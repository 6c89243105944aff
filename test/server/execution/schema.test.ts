import { describe, expect, it } from 'vitest';
import { resolvers } from '../../../server/resolvers/index.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';

describe('createSchema', () => {
  it('wires every Query field of schema.graphql to a resolver', () => {
    const schema = createSchema(readSdl(), resolvers);
    expect(Object.keys(schema.getQueryType()!.getFields()).sort()).toEqual(Object.keys(resolvers.Query).sort());
  });

  it('refuses a resolver for a field the SDL does not define', () => {
    expect(() => createSchema(readSdl(), { ...resolvers, Query: { ...resolvers.Query, skiPasses: () => [] } })).toThrow(/Query\.skiPasses/);
  });

  it('refuses a Query field without a resolver', () => {
    const { tours: _, ...rest } = resolvers.Query;
    expect(() => createSchema(readSdl(), { ...resolvers, Query: rest })).toThrow('schema.graphql defines Query fields without a resolver: tours');
  });
});
