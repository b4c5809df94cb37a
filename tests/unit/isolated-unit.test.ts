/**
 * The unit files share one module graph (vitest.config.ts, `isolate: false`): a file that replaces a module with
 * `vi.mock` / `vi.doMock` would see the real module another file loaded first, or leave its mock to the next file.
 * Such files must be listed in ISOLATED_UNIT, which runs them each on its own graph.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED_UNIT } from '../../vitest.config.ts';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, 'tests/unit');

describe('ISOLATED_UNIT', () => {
  it('lists every unit file that mocks a module, and only files that exist', () => {
    const mocking = readdirSync(dir).filter((f) => f.endsWith('.test.ts'))
      .filter((f) => /\bvi\.(mock|doMock)\(/.test(readFileSync(join(dir, f), 'utf8')))
      .map((f) => `tests/unit/${f}`);
    expect(mocking.length).toBeGreaterThan(0);
    for (const f of mocking) expect(ISOLATED_UNIT, `${f} mocks a module`).toContain(f);
    for (const f of ISOLATED_UNIT) expect(existsSync(join(root, f)), f).toBe(true);
  });
});
