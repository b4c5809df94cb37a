import { defineConfig } from 'vitest/config';

// Unit and integration tests run in Node (unit: the inner loop of `npm run test:fast`; integration: the CLI end to end
// on fixture data and local servers); tests/e2e drives the built site in Debian's Chromium: one Chromium for the run
// (a fresh context per file, tests/helpers/browser.ts), one file at a time beside the Node projects (two at a time
// made each file about twice as slow on 2 cores and the run no shorter under `npm test`: docs/testing.md), or
// RAG_LAB_E2E_WORKERS of them.
/** Unit files that replace a module (`vi.mock`) or add a fixture entry to a registry other modules derive lists from at load. */
export const ISOLATED_UNIT = ['tests/unit/provider-registry.test.ts', 'tests/unit/evaluator-registry.test.ts', 'tests/unit/build-sources.test.ts'];
const e2eWorkers = Number(process.env.RAG_LAB_E2E_WORKERS) || 1;
export default defineConfig({
  test: {
    projects: [
      {
        // One module graph for the unit files (they load in about a fifth of the time), each file on an empty
        // IndexedDB (tests/helpers/fresh-indexeddb.ts); the files that replace a module or add to a registry run on
        // their own graph (unit-isolated).
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          exclude: ISOLATED_UNIT,
          environment: 'node',
          isolate: false,
          setupFiles: ['tests/helpers/fresh-indexeddb.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'unit-isolated',
          include: ISOLATED_UNIT,
          environment: 'node',
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          isolate: false, // one module graph, as for unit: the CLI runs in-process and keeps no state between runs
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/global-setup.ts'],
          isolate: false, // one module graph: each file opens its own browser contexts and servers, and closes them
          testTimeout: 180_000,
          hookTimeout: 180_000,
          maxWorkers: e2eWorkers,
        },
      },
    ],
  },
});
