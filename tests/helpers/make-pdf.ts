/**
 * PDFs made at test time, written by hand (a small object writer with a correct xref table), so each case is
 * exactly what a test needs: pages of known text in a standard font, a two-column page written row by row or
 * column by column, Unicode text through a Type0 font with a hand-written ToUnicode CMap, image-only pages, no
 * pages, an /Encrypt dictionary whose user password is not empty, and bytes that are not a PDF.
 */

const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** A PDF string literal of Latin-1 text: ( ) \ escaped, other bytes above 126 as octal. */
export function pdfString(s: string): string {
  let out = '(';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c > 255) throw new Error(`pdfString takes Latin-1 text, got U+${c.toString(16)}`);
    out += ch === '(' || ch === ')' || ch === '\\' ? `\\${ch}` : c < 32 || c > 126 ? `\\${c.toString(8).padStart(3, '0')}` : ch;
  }
  return out + ')';
}

/** A stream object's body. */
const stream = (data: string | Uint8Array, dict = '') => {
  const bytes = typeof data === 'string' ? latin1(data) : data;
  return concat([latin1(`<< /Length ${bytes.length}${dict ? ` ${dict}` : ''} >>\nstream\n`), bytes, latin1('\nendstream')]);
};

/** Objects 1…n (object 1 is the catalog) → a PDF file with a cross-reference table. */
function writePdf(objects: (string | Uint8Array)[], trailer = ''): Uint8Array {
  const parts: Uint8Array[] = [latin1('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    const part = concat([latin1(`${i + 1} 0 obj\n`), typeof body === 'string' ? latin1(body) : body, latin1('\nendobj\n')]);
    parts.push(part);
    at += part.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(latin1(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailer ? ` ${trailer}` : ''} >>\nstartxref\n${at}\n%%EOF\n`));
  return concat(parts);
}

/** A run of text at (x, y), in points from the bottom-left corner; `size` in points (default 11). */
export interface PdfText { x: number; y: number; text: string; size?: number }

export interface PdfPageSpec {
  /** Latin-1 text in Helvetica (WinAnsi), drawn in this order (the content stream's order). */
  texts?: PdfText[];
  /** Unicode text (any code point) in a Type0 font whose ToUnicode CMap maps each code to its character. */
  unicode?: PdfText[];
  /** Draw a small grey image (a page that shows something but has no text layer). */
  image?: boolean;
}

export interface MakePdfOptions {
  /** The document information's Title. */
  title?: string;
  /** Add an /Encrypt dictionary (standard handler, RC4 40-bit) whose user password is not empty. */
  encrypted?: boolean;
}

const utf16Hex = (ch: string) => [...new Uint8Array(new Uint16Array([...ch].flatMap((c) => {
  const cp = c.codePointAt(0)!;
  return cp > 0xffff ? [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)] : [cp];
})).buffer)].reduce<string[]>((acc, b, i, all) => (i % 2 === 0 ? [...acc, all[i + 1]!.toString(16).padStart(2, '0') + b.toString(16).padStart(2, '0')] : acc), []).join('').toUpperCase();

/** A PDF of the given pages (US Letter, 612 × 792 pt). */
export function makePdf(pages: readonly PdfPageSpec[], opts: MakePdfOptions = {}): Uint8Array {
  const objects: (string | Uint8Array)[] = [];
  const add = (body: string | Uint8Array) => objects.push(body);
  add(''); // 1: catalog, filled in below
  add(''); // 2: page tree
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'); // 3
  // The Unicode font: a code per distinct character, in order of first use.
  const codes = new Map<string, number>();
  for (const p of pages) for (const t of p.unicode ?? []) for (const ch of t.text) if (!codes.has(ch)) codes.set(ch, codes.size + 1);
  let unicodeFont = 0;
  if (codes.size > 0) {
    const entries = [...codes].map(([ch, code]) => `<${code.toString(16).padStart(4, '0').toUpperCase()}> <${utf16Hex(ch)}>`);
    const blocks: string[] = [];
    for (let i = 0; i < entries.length; i += 100) blocks.push(`${entries.slice(i, i + 100).length} beginbfchar\n${entries.slice(i, i + 100).join('\n')}\nendbfchar`);
    const cmap = `/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n${blocks.join('\n')}\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend`;
    const toUnicode = add(stream(cmap));
    const descriptor = add('<< /Type /FontDescriptor /FontName /RagLabTest /Flags 4 /FontBBox [0 -200 1000 800] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 >>');
    const cidFont = add(`<< /Type /Font /Subtype /CIDFontType2 /BaseFont /RagLabTest /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor ${descriptor} 0 R /DW 600 /CIDToGIDMap /Identity >>`);
    unicodeFont = add(`<< /Type /Font /Subtype /Type0 /BaseFont /RagLabTest /Encoding /Identity-H /DescendantFonts [${cidFont} 0 R] /ToUnicode ${toUnicode} 0 R >>`);
  }
  const image = add(stream(new Uint8Array([0x40, 0xc0, 0xc0, 0x40]), '/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8'));
  const kids: number[] = [];
  for (const p of pages) {
    const ops: string[] = [];
    for (const t of p.texts ?? []) ops.push(`BT /F1 ${t.size ?? 11} Tf 1 0 0 1 ${t.x} ${t.y} Tm ${pdfString(t.text)} Tj ET`);
    for (const t of p.unicode ?? []) {
      const hex = [...t.text].map((ch) => codes.get(ch)!.toString(16).padStart(4, '0')).join('');
      ops.push(`BT /F2 ${t.size ?? 11} Tf 1 0 0 1 ${t.x} ${t.y} Tm <${hex}> Tj ET`);
    }
    if (p.image) ops.push('q 200 0 0 200 100 400 cm /Im1 Do Q');
    const content = add(stream(ops.join('\n')));
    const fonts = `/F1 3 0 R${unicodeFont ? ` /F2 ${unicodeFont} 0 R` : ''}`;
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << ${fonts} >> /XObject << /Im1 ${image} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const trailer: string[] = [];
  if (opts.title !== undefined) trailer.push(`/Info ${add(`<< /Title ${pdfString(opts.title)} /Producer (rag-lab tests) >>`)} 0 R`);
  if (opts.encrypted) {
    // O and U are not derived from any password we know: pdf.js finds that neither the empty user password nor
    // the empty owner password opens the file, and asks for one.
    const hex = (seed: number) => Array.from({ length: 32 }, (_, i) => ((i * 37 + seed) & 0xff).toString(16).padStart(2, '0')).join('');
    trailer.push(`/Encrypt ${add(`<< /Filter /Standard /V 1 /R 2 /Length 40 /O <${hex(11)}> /U <${hex(91)}> /P -44 >>`)} 0 R`);
    trailer.push(`/ID [<${hex(5).slice(0, 32)}> <${hex(5).slice(0, 32)}>]`);
  }
  return writePdf(objects, trailer.join(' '));
}

/** Lines of at most `width` characters (words kept whole). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) { lines.push(line); line = word; }
    else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A page of Latin-1 text: paragraphs (split at blank lines) wrapped at 95 characters, 10 pt, top to bottom. */
export function textPage(text: string, size = 10): PdfPageSpec {
  const texts: PdfText[] = [];
  let y = 750;
  for (const para of text.split(/\n\s*\n/)) {
    for (const line of wrap(para, 95)) { texts.push({ x: 50, y, text: line, size }); y -= size * 1.2; }
    y -= size * 1.2;
  }
  return { texts };
}

/** A PDF with one page per text (`textPage`). */
export const textPdf = (pageTexts: readonly string[], opts: MakePdfOptions = {}) => makePdf(pageTexts.map((t) => textPage(t)), opts);

/**
 * A two-column page: a full-width title, the two columns' lines (wrapped at 45 characters) and a full-width footer.
 * `order` 'rows' writes the content stream row by row (left line 1, right line 1, …), as some producers do.
 */
export function twoColumnPage(title: string, left: string, right: string, footer: string, order: 'rows' | 'columns'): PdfPageSpec {
  const l = wrap(left, 45), r = wrap(right, 45);
  const at = (i: number) => 720 - i * 13;
  const leftTexts = l.map((text, i) => ({ x: 50, y: at(i), text, size: 10 }));
  const rightTexts = r.map((text, i) => ({ x: 320, y: at(i), text, size: 10 }));
  const body: PdfText[] = [];
  if (order === 'columns') body.push(...leftTexts, ...rightTexts);
  else for (let i = 0; i < Math.max(l.length, r.length); i++) body.push(...(leftTexts[i] ? [leftTexts[i]!] : []), ...(rightTexts[i] ? [rightTexts[i]!] : []));
  return { texts: [{ x: 50, y: 760, text: title, size: 14 }, ...body, { x: 50, y: at(Math.max(l.length, r.length)) - 30, text: footer, size: 10 }] };
}

/** Bytes that start like a PDF and then are not one. */
export const corruptPdf = () => latin1('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R\ngarbage garbage\n%%EOF');
