/** White space of text taken out of PDF pages and HTML: what the chunker and a reader should see. */

/**
 * Unicode line and paragraph separators and form feeds become line breaks, other white space but line breaks one
 * space; lines are trimmed; runs of blank lines become one (a paragraph break); no white space at either end.
 */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029\f\v]/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
