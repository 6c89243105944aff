import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Server tests build indexes over the whole fixture snapshot; give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
