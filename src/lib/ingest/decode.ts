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

/**
 * Windows-1252's 0x80–0x9F (WHATWG Encoding; the five unassigned bytes stay C1 controls). Decoded by hand: Node 20's
 * TextDecoder('windows-1252') reads these bytes as Latin-1 control characters.
 */
const CP1252_80_9F = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** Windows-1252 bytes → text (every byte is one character). */
export function decodeWindows1252(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 8192;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const codes = Array.from(bytes.subarray(i, i + CHUNK), (b) => (b >= 0x80 && b <= 0x9f ? CP1252_80_9F.charCodeAt(b - 0x80) : b));
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join('');
}

function text(bytes: Uint8Array, encoding: Encoding, guessed: boolean, fatal = false): Decoded {
  const t = encoding === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(encoding, { fatal, ignoreBOM: false }).decode(bytes);
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
