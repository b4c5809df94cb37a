/** build-index's --dtype check (src/lib/kb-build/build-flags.ts): every dtype of models/types.ts, nothing else. */
import { describe, expect, it } from 'vitest';
import { checkBuildFlags } from '../../src/lib/kb-build/build-flags.ts';
import { BuildError } from '../../src/lib/kb-build/build-kb.ts';
import { DTYPES, isDtype } from '../../src/lib/models/types.ts';

const flags = (dtype: string | undefined) => ({ data: 'in', out: 'out', dtype, 'no-chunk': false, int8: false, hnsw: false });

describe('build-index --dtype', () => {
  it('takes each of fp32, q8, uint8, q4 and fp16', () => {
    expect([...DTYPES].sort()).toEqual(['fp16', 'fp32', 'q4', 'q8', 'uint8']);
    for (const d of DTYPES) expect(() => checkBuildFlags(flags(d), 'usage')).not.toThrow();
  });

  it('refuses any other value, naming the ones it takes', () => {
    for (const bad of ['int4', 'Q8', '', 'fp32 ', undefined]) {
      expect(() => checkBuildFlags(flags(bad), 'usage')).toThrow(BuildError);
      expect(() => checkBuildFlags(flags(bad), 'usage')).toThrow(`--dtype must be one of q8, fp32, uint8, q4, fp16, got "${bad}"`);
    }
    expect(['q8', 'uint8', 'bnb4', null, 8].map(isDtype)).toEqual([true, true, false, false, false]);
  });
});
