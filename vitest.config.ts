import { defineConfig } from 'vitest/config';

// Unit and integration tests run in Node (unit: the inner loop of `npm run test:fast`; integration: the CLI end to end
// on fixture data and local servers); tests/e2e drives the built site in Debian's Chromium: one Chromium for the run
// (a fresh context per file, tests/helpers/browser.ts), one file at a time beside the Node projects (two at a time
// made each file about twice as slow on 2 cores and the run no shorter under `npm test`: docs/testing.md), or
// RAG_LAB_E2E_WORKERS of them.
const e2eWorkers = Number(process.env.RAG_LAB_E2E_WORKERS) || 1;
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          maxWorkers: e2eWorkers,
        },
      },
    ],
  },
});
