/**
 * NumPy `.npy` files (numpy/lib/format.py): magic `\x93NUMPY`, version major.minor, header length (uint16 LE in
 * v1.0, uint32 LE in v2.0/3.0), an ASCII (v3: UTF-8) Python dict literal `{'descr': '<f4', 'fortran_order': False,
 * 'shape': (N, D), }` padded with spaces and a final `\n` so the data starts on a 64-byte boundary, then the raw
 * C-order data. Only little-endian numeric dtypes of the artifact format are read; everything else is refused with
 * a message naming the file.
 */
import { ArtifactError } from './types.ts';

export type NpyDtype = '<f4' | '<f8' | '|i1' | '|u1' | '<u2' | '<u4' | '<i4';
export type NpyArray = Float32Array | Float64Array | Int8Array | Uint8Array | Uint16Array | Uint32Array | Int32Array;

export interface Npy {
  dtype: NpyDtype;
  shape: number[];
  data: NpyArray;
}

type Ctor = { new (buffer: ArrayBuffer, byteOffset: number, length: number): NpyArray; new (length: number): NpyArray; BYTES_PER_ELEMENT: number };

const DTYPES: Record<NpyDtype, Ctor> = {
  '<f4': Float32Array,
  '<f8': Float64Array,
  '|i1': Int8Array,
  '|u1': Uint8Array,
  '<u2': Uint16Array,
  '<u4': Uint32Array,
  '<i4': Int32Array,
};

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const ALIGN = 64;

// Typed arrays use the platform's byte order; .npy data here is little-endian.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function requireLittleEndian(): void {
  if (!LITTLE_ENDIAN) throw new Error('npy: this platform is big-endian; .npy support assumes a little-endian host');
}

/** Reads a .npy file; `file` names it in errors. The data is a view of `bytes` when aligned, else a copy. */
export function parseNpy(bytes: Uint8Array, file: string): Npy {
  requireLittleEndian();
  const fail = (why: string) => new ArtifactError(file, why);
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) throw fail('not a .npy file (bad magic number)');
  const major = bytes[6]!;
  if (major < 1 || major > 3) throw fail(`.npy format version ${major}.${bytes[7]} is not supported (1.0–3.0 are)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lenBytes) throw fail('the .npy header is truncated: re-download it');
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const dataOffset = 8 + lenBytes + headerLen;
  if (bytes.length < dataOffset) throw fail(`the .npy header is truncated (${headerLen} bytes announced, the file has ${bytes.length - 8 - lenBytes}): re-download it`);
  const headerBytes = bytes.subarray(8 + lenBytes, dataOffset);
  let header: string;
  try {
    header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1', { fatal: major === 3 }).decode(headerBytes);
  } catch {
    throw fail('the .npy header is not UTF-8');
  }
  const { descr, fortranOrder, shape } = parseHeader(header, fail);
  if (fortranOrder) throw fail('the array is stored in Fortran order (fortran_order: True); save it C-ordered (numpy.ascontiguousarray) and write it again');
  if (descr.startsWith('>')) throw fail(`the array is big-endian (${descr}); convert it to little-endian (arr.astype('<${descr.slice(1)}')) and write it again`);
  const ctor = DTYPES[descr as NpyDtype];
  if (!ctor) throw fail(`dtype ${descr} is not supported (expected one of ${Object.keys(DTYPES).join(', ')})`);
  let n = 1;
  for (const d of shape) n *= d;
  if (!Number.isSafeInteger(n * ctor.BYTES_PER_ELEMENT)) throw fail(`shape (${shape.join(', ')}) is too large`);
  const expected = n * ctor.BYTES_PER_ELEMENT;
  const have = bytes.length - dataOffset;
  if (have < expected) throw fail(`expected ${expected} bytes of data, the file has ${have}: re-download it`);
  if (have > expected) throw fail(`expected ${expected} bytes of data, the file has ${have} (trailing bytes): it is not the file meta.json describes`);
  const start = bytes.byteOffset + dataOffset;
  const data = start % ctor.BYTES_PER_ELEMENT === 0
    ? new ctor(bytes.buffer as ArrayBuffer, start, n)
    : new ctor((bytes.slice(dataOffset) as Uint8Array<ArrayBuffer>).buffer, 0, n);
  return { dtype: descr as NpyDtype, shape, data };
}

/**
 * The header dict, strictly: exactly the keys descr (a quoted string), fortran_order (True/False) and shape (a
 * tuple of non-negative integers), in any order, an optional trailing comma, then spaces and one newline.
 */
function parseHeader(h: string, fail: (why: string) => ArtifactError): { descr: string; fortranOrder: boolean; shape: number[] } {
  const bad = (why: string) => fail(`the .npy header is malformed (${why}): ${JSON.stringify(h.trimEnd().slice(0, 120))}`);
  let i = 0;
  const ws = () => { while (h[i] === ' ') i++; };
  const expect = (c: string) => {
    ws();
    if (h[i] !== c) throw bad(`expected "${c}" at ${i}`);
    i++;
  };
  const str = (): string => {
    ws();
    const q = h[i];
    if (q !== "'" && q !== '"') throw bad(`expected a quoted string at ${i}`);
    const end = h.indexOf(q, i + 1);
    if (end < 0) throw bad('unterminated string');
    const s = h.slice(i + 1, end);
    i = end + 1;
    return s;
  };
  const values: Record<string, unknown> = {};
  expect('{');
  ws();
  while (h[i] !== '}') {
    const key = str();
    expect(':');
    ws();
    let value: unknown;
    if (key === 'descr') value = str();
    else if (key === 'fortran_order') {
      const m = /^(True|False)/.exec(h.slice(i));
      if (!m) throw bad('fortran_order is not True or False');
      value = m[1] === 'True';
      i += m[1]!.length;
    } else if (key === 'shape') {
      expect('(');
      const dims: number[] = [];
      ws();
      while (h[i] !== ')') {
        const m = /^\d+/.exec(h.slice(i));
        if (!m) throw bad(`expected an integer in shape at ${i}`);
        dims.push(Number(m[0]));
        i += m[0].length;
        ws();
        if (h[i] === ',') { i++; ws(); } else if (h[i] !== ')') throw bad(`expected "," or ")" in shape at ${i}`);
      }
      i++;
      // One dimension needs its trailing comma in Python: (3) is the integer 3, not a tuple.
      if (dims.length === 1 && !/,\s*\)$/.test(h.slice(0, i))) throw bad('a one-dimensional shape needs a trailing comma, e.g. (3,)');
      value = dims;
    } else throw bad(`unexpected key "${key}"`);
    if (key in values) throw bad(`key "${key}" repeated`);
    values[key] = value;
    ws();
    if (h[i] === ',') { i++; ws(); } else if (h[i] !== '}') throw bad(`expected "," or "}" at ${i}`);
  }
  i++;
  if (!/^ *\n?$/.test(h.slice(i))) throw bad('unexpected text after the dict');
  for (const k of ['descr', 'fortran_order', 'shape']) if (!(k in values)) throw bad(`key "${k}" missing`);
  for (const d of values.shape as number[]) if (!Number.isSafeInteger(d)) throw bad('a dimension is too large');
  return { descr: values.descr as string, fortranOrder: values.fortran_order as boolean, shape: values.shape as number[] };
}

function dtypeOf(data: NpyArray): NpyDtype {
  if (data instanceof Float32Array) return '<f4';
  if (data instanceof Float64Array) return '<f8';
  if (data instanceof Int8Array) return '|i1';
  if (data instanceof Uint8Array) return '|u1';
  if (data instanceof Uint16Array) return '<u2';
  if (data instanceof Uint32Array) return '<u4';
  if (data instanceof Int32Array) return '<i4';
  throw new Error('writeNpy: unsupported array type');
}

/** A v1.0 .npy file of `data` (C order) with `shape` (default: one dimension); the header pads the data to 64 bytes. */
export function writeNpy(data: NpyArray, shape: readonly number[] = [data.length]): Uint8Array {
  requireLittleEndian();
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) throw new Error(`writeNpy: bad dimension ${d}`);
    n *= d;
  }
  if (n !== data.length) throw new Error(`writeNpy: shape (${shape.join(', ')}) holds ${n} values, the array has ${data.length}`);
  const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${dtypeOf(data)}', 'fortran_order': False, 'shape': ${tuple}, }`;
  const unpadded = 10 + header.length + 1; // magic 6 + version 2 + length 2, header, '\n'
  header += ' '.repeat((ALIGN - (unpadded % ALIGN)) % ALIGN) + '\n';
  if (header.length > 0xffff) throw new Error('writeNpy: header too long for format 1.0');
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 10 + header.length);
  return out;
}
