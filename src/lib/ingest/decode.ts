/**
 * Bytes of a text file → its text. UTF-8 (strict, so a Windows-1252 file is not read as replacement characters),
 * with or without a byte-order mark; UTF-16 LE/BE with their marks; anything else that is not valid UTF-8 is read
 * as Windows-1252 (the usual charset of such files; a superset of Latin-1 for text) and the caller notes the guess.
 * Bytes that are not text at all (a NUL byte, or many control characters) are reported as binary.
 */
export type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export type Decoded =
  | { kind: 'text'; text: string; encoding: Encoding; /** true when the charset was guessed (not valid UTF-8). */ guessed: boolean }
  | { kind: 'binary' };

export const BINARY_REASON = 'binary data, not text';

/** Share of control characters (C0 but tab, line feed, vertical tab, form feed, carriage return; DEL) above which text is binary. */
const MAX_CONTROL_SHARE = 0.02;
/** How many leading characters the control-character share is measured on. */
const SAMPLE = 65_536;

function mostlyControl(text: string): boolean {
  const n = Math.min(text.length, SAMPLE);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && (c < 0x09 || c > 0x0d)) || c === 0x7f) control++;
  }
  return n > 0 && control / n > MAX_CONTROL_SHARE;
}

function text(bytes: Uint8Array, encoding: Encoding, guessed: boolean, fatal = false): Decoded {
  const t = new TextDecoder(encoding, { fatal, ignoreBOM: false }).decode(bytes);
  return mostlyControl(t) ? { kind: 'binary' } : { kind: 'text', text: t, encoding, guessed };
}

/** Decodes a text file's bytes (see the module comment). The byte-order mark is not part of the text. */
export function decodeText(bytes: Uint8Array): Decoded {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return text(bytes, 'utf-8', false);
  if (b0 === 0xff && b1 === 0xfe) return text(bytes, 'utf-16le', false);
  if (b0 === 0xfe && b1 === 0xff) return text(bytes, 'utf-16be', false);
  // Text without a UTF-16 mark holds no NUL byte; binary formats nearly always do.
  if (bytes.indexOf(0) !== -1) return { kind: 'binary' };
  try {
    return text(bytes, 'utf-8', false, true);
  } catch {
    return text(bytes, 'windows-1252', true);
  }
}
