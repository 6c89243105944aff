import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files that start processes or a browser, run the bundle, or wait on file watching, OS
 * scheduling or load runs of a fixed length are named `*.slow.test.ts`:
 * the `slow` project runs them (`npm run test:all`), the `unit` project everything else
 * (`npm test`). `npx vitest run <file>` runs a file of either.
 */
const SLOW = 'test/**/*.slow.test.ts';

export default defineConfig({
  resolve: {
    // Resolve graphql as Node does (its CommonJS main), as graphql-http and @graphql-tools do;
    // otherwise vite picks graphql's ESM build for our code and two GraphQLError classes exist.
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }],
  },
  test: {
    // A safety net for a test stuck on an event that never comes, not a bound on speed.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      // Vitest's default leaves a core to its main process; the unit tests rarely leave it busy.
      // The files of a worker share its modules rather than importing them again for each file,
      // so a test file must leave no global state behind (listeners, timers, changed modules).
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [SLOW], maxWorkers: availableParallelism(), isolate: false, sequence: { groupOrder: 0 } },
      },
      // The bundle is built once, when a slow file is queued, and shared (test/helpers/bundle.ts).
      // Run after the unit project when one command runs both, so each keeps its own worker count.
      { extends: true, test: { name: 'slow', include: [SLOW], globalSetup: ['test/helpers/bundleSetup.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});
