/** The Space's response headers (README front matter) and the build's own copies must not drift apart. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CONTENT_SECURITY_POLICY, ISOLATION_HEADERS } from '../../vite.config.ts';

const root = resolve(import.meta.dirname, '../..');

/** The `custom_headers:` block of the README's YAML front matter, as name → value (lower-case names). */
function spaceHeaders(): Record<string, string> {
  const front = readFileSync(resolve(root, 'README.md'), 'utf8').split(/^---$/m)[1] ?? '';
  const block = front.slice(front.indexOf('custom_headers:'));
  const out: Record<string, string> = {};
  for (const m of block.matchAll(/^ {2}([a-z-]+): (.+)$/gm)) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  return out;
}

describe('site headers', () => {
  test('the Space sends the same CSP and COOP/COEP as the build and the test servers use', () => {
    const h = spaceHeaders();
    expect(h['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    for (const [k, v] of Object.entries(ISOLATION_HEADERS)) expect(h[k.toLowerCase()]).toBe(v);
  });

  test('the policy allows no inline or evaluated script', () => {
    const script = CONTENT_SECURITY_POLICY.split('; ').find((d) => d.startsWith('script-src '));
    expect(script).toBeDefined();
    expect(script).not.toMatch(/'unsafe-inline'|'unsafe-eval'|\*/);
    expect(CONTENT_SECURITY_POLICY).toMatch(/object-src 'none'/);
  });
});
