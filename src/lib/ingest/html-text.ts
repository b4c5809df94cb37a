/**
 * HTML → text and title, without a DOM (htmlparser2, so it runs in a worker and in Node). Scripts, styles,
 * `<noscript>` and `<template>` are skipped; paragraph-level elements end a paragraph (a blank line), other block
 * elements and `<br>` a line; white space collapses as a browser shows it (`<pre>` keeps its line breaks); entities are
 * decoded. The title is `<title>`'s text, else the first `<h1>`'s, else null.
 */
import { Parser } from 'htmlparser2';
import { normaliseText } from './text-normalise.ts';

export interface HtmlText {
  title: string | null;
  text: string;
}

const SKIP = new Set(['script', 'style', 'noscript', 'template']);
const PARAGRAPH = new Set([
  'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'table', 'ul', 'ol', 'dl', 'section', 'article',
  'header', 'footer', 'main', 'aside', 'nav', 'figure', 'form', 'hr', 'address', 'details', 'fieldset',
]);
const LINE = new Set(['div', 'li', 'tr', 'dt', 'dd', 'br', 'caption', 'figcaption', 'summary', 'option', 'legend', 'body']);
const CELL = new Set(['td', 'th']);

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The text and title of an HTML document (see the module comment). */
export function htmlToText(html: string): HtmlText {
  const out: string[] = [];
  let skip = 0, pre = 0, inTitle = 0, inH1 = 0;
  let title = '', h1: string | null = null, h1Text = '';
  // The break owed before the next text: 0 none, 1 a line, 2 a paragraph (the largest of those asked for wins).
  let pending = 0;
  const brk = (level: number) => { pending = Math.max(pending, level); };
  const parser = new Parser({
    onopentag(name) {
      if (SKIP.has(name)) skip++;
      if (skip > 0) return;
      if (name === 'title') inTitle++;
      else if (name === 'pre') pre++;
      if (name === 'h1' && h1 === null) inH1++;
      if (PARAGRAPH.has(name)) brk(2);
      else if (LINE.has(name)) brk(1);
    },
    ontext(data) {
      if (skip > 0) return;
      if (inTitle > 0) { title += data; return; }
      if (inH1 > 0) h1Text += data;
      if (pending > 0) {
        if (!data.trim()) return;
        if (out.length > 0) out.push(pending === 2 ? '\n\n' : '\n');
        pending = 0;
      }
      out.push(pre > 0 ? data : data.replace(/\s+/g, ' '));
    },
    onclosetag(name) {
      if (SKIP.has(name)) { skip = Math.max(0, skip - 1); return; }
      if (skip > 0) return;
      if (name === 'title') inTitle = Math.max(0, inTitle - 1);
      else if (name === 'pre') pre = Math.max(0, pre - 1);
      if (name === 'h1' && inH1 > 0 && --inH1 === 0 && h1 === null) h1 = collapse(h1Text);
      if (PARAGRAPH.has(name)) brk(2);
      else if (LINE.has(name) && name !== 'br') brk(1);
      else if (CELL.has(name)) out.push(' ');
    },
  }, { decodeEntities: true, lowerCaseTags: true });
  parser.write(html);
  parser.end();
  const t = collapse(title);
  return { title: t || h1 || null, text: normaliseText(out.join('')) };
}
