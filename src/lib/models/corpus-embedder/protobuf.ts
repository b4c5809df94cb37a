/**
 * A minimal Protocol Buffers writer (proto3 wire format: https://protobuf.dev/programming-guides/encoding/):
 * varint fields (wire type 0), 32-bit floats (wire type 5) and length-delimited fields (wire type 2: strings, bytes,
 * nested messages, packed repeated varints). Enough to write the ONNX messages of `onnx-graph.ts`.
 */

/** One field of a message, written in order. */
export type Field =
  | { n: number; varint: number | bigint }
  | { n: number; float: number }
  | { n: number; string: string }
  | { n: number; bytes: Uint8Array }
  | { n: number; message: Field[] }
  | { n: number; packed: readonly (number | bigint)[] };

const utf8 = new TextEncoder();

/** Base-128 varint, least significant group first; negative numbers as 64-bit two's complement (10 bytes). */
export function varint(value: number | bigint): Uint8Array {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return Uint8Array.from(out);
}

const key = (n: number, wire: number) => varint(n * 8 + wire); // tag = (field_number << 3) | wire_type

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/** The bytes of a message. */
export function encodeMessage(fields: readonly Field[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const delimited = (n: number, body: Uint8Array) => { parts.push(key(n, 2), varint(body.length), body); };
  for (const f of fields) {
    if ('varint' in f) parts.push(key(f.n, 0), varint(f.varint));
    else if ('float' in f) {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setFloat32(0, f.float, true);
      parts.push(key(f.n, 5), b);
    } else if ('string' in f) delimited(f.n, utf8.encode(f.string));
    else if ('bytes' in f) delimited(f.n, f.bytes);
    else if ('message' in f) delimited(f.n, encodeMessage(f.message));
    else delimited(f.n, concat(f.packed.map(varint)));
  }
  return concat(parts);
}
