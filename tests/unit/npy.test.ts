import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseNpy, writeNpy, type NpyArray } from '../../src/lib/artifact/npy.ts';
import { ArtifactError } from '../../src/lib/artifact/types.ts';

const numpy = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
const HAVE_NUMPY = numpy.status === 0;
// CI installs python3-numpy (.ci/run): there, a missing numpy is a broken setup, not a reason to skip.
if (!HAVE_NUMPY && process.env.CI) throw new Error(`npy.test: python3 with numpy is required in CI (apt-get install -y python3-numpy): ${numpy.error?.message ?? numpy.stderr.trim()}`);
if (!HAVE_NUMPY) console.warn(`npy.test: numpy cases skipped: python3 with numpy is not available (${numpy.error?.message ?? numpy.stderr.trim()})`);

const dir = mkdtempSync(join(tmpdir(), 'npy-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function python(code: string): string {
  return execFileSync('python3', ['-c', code], { encoding: 'utf8', cwd: dir });
}

const header = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes.subarray(10, 10 + (bytes[8]! | (bytes[9]! << 8))));

describe('writeNpy / parseNpy', () => {
  const cases: Array<[string, NpyArray, number[]]> = [
    ['<f4', Float32Array.from([1.5, -2.25, 3e-8, 0, 7, 8]), [2, 3]],
    ['<f8', Float64Array.from([Math.PI, -0, 1e300]), [3]],
    ['|i1', Int8Array.from([-127, 0, 5, 127]), [2, 2]],
    ['|u1', Uint8Array.from([0, 255, 9]), [3]],
    ['<u2', Uint16Array.from([65535, 1]), [2]],
    ['<u4', Uint32Array.from([4294967295, 0, 12]), [3, 1]],
    ['<i4', Int32Array.from([-5, 2147483647]), [1, 2]],
  ];
  it.each(cases)('round-trips %s', (dtype, data, shape) => {
    const bytes = writeNpy(data, shape);
    expect((bytes.length - data.byteLength) % 64).toBe(0);
    const back = parseNpy(bytes, 'x.npy');
    expect(back.dtype).toBe(dtype);
    expect(back.shape).toEqual(shape);
    expect(Array.from(back.data)).toEqual(Array.from(data));
    expect(back.data.constructor).toBe(data.constructor);
  });

  it('writes numpy\'s header: descr, fortran_order, shape, 1-D tuples with a comma, padded to 64 with a newline', () => {
    const h = header(writeNpy(new Float32Array(6), [2, 3]));
    expect(h.startsWith("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }")).toBe(true);
    expect(h.endsWith('\n')).toBe(true);
    expect(header(writeNpy(new Uint8Array(4)))).toContain("'shape': (4,)");
    expect(header(writeNpy(new Float64Array(1), []))).toContain("'shape': ()");
  });

  it('refuses a shape that does not hold the data', () => {
    expect(() => writeNpy(new Float32Array(5), [2, 3])).toThrow(/holds 6 values, the array has 5/);
  });

  it('reads an unaligned buffer by copying', () => {
    const bytes = writeNpy(Float32Array.from([1, 2, 3]));
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(Array.from(parseNpy(shifted.subarray(1), 'x.npy').data)).toEqual([1, 2, 3]);
  });
});

describe('parseNpy refusals', () => {
  const good = writeNpy(Float32Array.from([1, 2, 3, 4]), [2, 2]);
  const withHeader = (h: string) => {
    let text = h;
    const pad = (64 - ((10 + text.length + 1) % 64)) % 64;
    text += ' '.repeat(pad) + '\n';
    const out = new Uint8Array(10 + text.length + 16);
    out.set(good.subarray(0, 8));
    new DataView(out.buffer).setUint16(8, text.length, true);
    for (let i = 0; i < text.length; i++) out[10 + i] = text.charCodeAt(i);
    return out;
  };
  const refuse = (bytes: Uint8Array, message: RegExp) => {
    let err: unknown;
    try { parseNpy(bytes, 'dir/embeddings.npy'); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ArtifactError);
    expect((err as ArtifactError).file).toBe('dir/embeddings.npy');
    expect((err as Error).message).toMatch(message);
  };

  it('bad magic', () => refuse(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), /bad magic/));
  it('truncated data, with the byte counts and what to do', () => refuse(good.subarray(0, good.length - 3), /expected 16 bytes of data, the file has 13: re-download it/));
  it('truncated header', () => refuse(good.subarray(0, 40), /header is truncated/));
  it('trailing bytes', () => {
    const longer = new Uint8Array(good.length + 4);
    longer.set(good);
    refuse(longer, /expected 16 bytes of data, the file has 20/);
  });
  it('big-endian', () => refuse(withHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }"), /big-endian \(>f4\)/));
  it('Fortran order', () => refuse(withHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"), /Fortran order/));
  it('unsupported dtype', () => refuse(withHeader("{'descr': '<f2', 'fortran_order': False, 'shape': (8,), }"), /dtype <f2 is not supported/));
  it.each([
    ["{'descr': '<f4', 'shape': (2, 2), }", /"fortran_order" missing/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", /trailing comma/],
    ["{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }", /not True or False/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", /unexpected key "x"/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", /expected an integer/],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } junk", /unexpected text/],
  ])('a malformed header %s', (h, message) => refuse(withHeader(h), message));
});

describe.skipIf(!HAVE_NUMPY)('interop with numpy (python3 at test time)', () => {
  it('reads files numpy wrote: every dtype of the format, 1-D, 2-D, empty and v2.0 headers', () => {
    python([
      'import numpy as np',
      "np.save('f4.npy', np.arange(12, dtype='<f4').reshape(3, 4) / 7)",
      "np.save('f8.npy', np.array([0.1, -2.5, 1e-300], dtype='<f8'))",
      "np.save('i1.npy', np.array([[-128, 127], [0, -1]], dtype='i1'))",
      "np.save('u1.npy', np.arange(5, dtype='u1'))",
      "np.save('u2.npy', np.array([0, 65535], dtype='<u2'))",
      "np.save('u4.npy', np.array([4294967295, 3], dtype='<u4'))",
      "np.save('i4.npy', np.array([-2147483648, 2147483647], dtype='<i4'))",
      "np.save('empty.npy', np.zeros((0, 384), dtype='<f4'))",
      "np.lib.format.write_array(open('v2.npy', 'wb'), np.arange(3, dtype='<f4'), version=(2, 0))",
      "np.save('be.npy', np.arange(3, dtype='>f4'))",
      "np.save('fortran.npy', np.asfortranarray(np.arange(6, dtype='<f4').reshape(2, 3)))",
    ].join('\n'));
    const read = (f: string) => parseNpy(new Uint8Array(readFileSync(join(dir, f))), f);
    const f4 = read('f4.npy');
    expect(f4.shape).toEqual([3, 4]);
    expect(Array.from(f4.data)).toEqual(Array.from(Float32Array.from({ length: 12 }, (_, i) => i / 7)));
    expect(Array.from(read('f8.npy').data)).toEqual([0.1, -2.5, 1e-300]);
    expect(read('i1.npy')).toMatchObject({ dtype: '|i1', shape: [2, 2] });
    expect(Array.from(read('i1.npy').data)).toEqual([-128, 127, 0, -1]);
    expect(Array.from(read('u1.npy').data)).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(read('u2.npy').data)).toEqual([0, 65535]);
    expect(Array.from(read('u4.npy').data)).toEqual([4294967295, 3]);
    expect(Array.from(read('i4.npy').data)).toEqual([-2147483648, 2147483647]);
    expect(read('empty.npy')).toMatchObject({ shape: [0, 384] });
    expect(read('empty.npy').data.length).toBe(0);
    expect(Array.from(read('v2.npy').data)).toEqual([0, 1, 2]);
    expect(() => read('be.npy')).toThrow(/big-endian/);
    expect(() => read('fortran.npy')).toThrow(/Fortran order/);
    const truncated = new Uint8Array(readFileSync(join(dir, 'f4.npy')));
    expect(() => parseNpy(truncated.subarray(0, truncated.length - 1), 'f4.npy')).toThrow(/expected 48 bytes of data, the file has 47: re-download it/);
  });

  it('numpy reads what writeNpy wrote, equal values, dtypes and shapes', () => {
    const arrays: Record<string, [NpyArray, number[]]> = {
      w_f4: [Float32Array.from([0.25, -1, 3.5, 1e-7, 2, 9]), [2, 3]],
      w_f8: [Float64Array.from([Math.E, -1e200]), [2]],
      w_i1: [Int8Array.from([-127, 3, 0, 127]), [4]],
      w_u1: [Uint8Array.from([7, 0, 255]), [3]],
      w_u2: [Uint16Array.from([1, 65535]), [2, 1]],
      w_u4: [Uint32Array.from([4294967295]), [1]],
      w_i4: [Int32Array.from([-7, 7]), [2]],
      w_empty: [new Float32Array(0), [0, 16]],
    };
    for (const [name, [data, shape]] of Object.entries(arrays)) writeFileSync(join(dir, `${name}.npy`), writeNpy(data, shape));
    const out = JSON.parse(python([
      'import numpy as np, json',
      `names = ${JSON.stringify(Object.keys(arrays))}`,
      "print(json.dumps({n: {'dtype': np.load(n + '.npy').dtype.str, 'shape': list(np.load(n + '.npy').shape), 'values': np.load(n + '.npy').ravel().tolist(), 'c': bool(np.load(n + '.npy').flags['C_CONTIGUOUS'])} for n in names}))",
    ].join('\n')));
    for (const [name, [data, shape]] of Object.entries(arrays)) {
      expect(out[name].shape, name).toEqual(shape);
      expect(out[name].values, name).toEqual(Array.from(data));
      expect(out[name].dtype, name).toBe(parseNpy(writeNpy(data, shape), name).dtype);
      expect(out[name].c).toBe(true);
    }
  });
});
