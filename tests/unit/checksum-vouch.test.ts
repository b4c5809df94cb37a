import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex, sha256Of, vouchSha256 } from '../../src/lib/checksum.ts';

const hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

describe('sha256Hex and vouched hashes', () => {
  it('hashes one array in place and several parts as their concatenation (node:crypto as the reference)', async () => {
    const a = new Uint8Array([1, 2, 3, 250]), b = new Uint8Array([9, 8]);
    expect(await sha256Hex(a)).toBe(hex(a));
    expect(await sha256Hex(a.subarray(1, 3))).toBe(hex(a.subarray(1, 3)));
    expect(await sha256Hex(a, 'x', b)).toBe(hex(Buffer.concat([a, Buffer.from('x'), b])));
  });

  it('a vouched hash is taken once, then the bytes are hashed again (they may have changed since)', async () => {
    const bytes = new Uint8Array([5, 6, 7]);
    const claimed = 'AB'.repeat(32);
    vouchSha256(bytes, claimed);
    expect(await sha256Of(bytes, { take: false })).toBe(claimed.toLowerCase());
    expect(await sha256Of(bytes)).toBe(claimed.toLowerCase());
    expect(await sha256Of(bytes)).toBe(hex(bytes));
  });

  it('another array with the same contents is not vouched for', async () => {
    const bytes = new Uint8Array([5, 6, 7]);
    vouchSha256(bytes, '00'.repeat(32));
    expect(await sha256Of(bytes.slice())).toBe(hex(bytes));
  });
});
