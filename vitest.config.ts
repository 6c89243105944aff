import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Resolve graphql as Node does (its CommonJS main), as graphql-http and @graphql-tools do;
    // otherwise vite picks graphql's ESM build for our code and two GraphQLError classes exist.
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Server tests build indexes over the whole fixture snapshot; give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
