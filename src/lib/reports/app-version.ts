/** The app's version as written into reports (kept equal to package.json's `version` by tests/unit/app-version.test.ts). */
export const APP_VERSION = '0.1.0';
