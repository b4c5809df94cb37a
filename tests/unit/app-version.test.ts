import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { APP_VERSION } from '../../src/lib/reports/app-version.ts';

test('APP_VERSION is package.json version', () => {
  expect(APP_VERSION).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
});
