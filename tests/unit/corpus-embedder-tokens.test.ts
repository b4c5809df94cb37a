/**
 * The trainer's words are the ones transformers.js's WordPiece tokenizer produces from the tokenizer.json the
 * trainer writes (BertNormalizer + BertPreTokenizer), on tricky text and on SciFact abstracts when ../shared has
 * them; a word outside the vocabulary becomes [UNK], also when a prefix of it is a term.
 */
import { AutoTokenizer } from '@huggingface/transformers';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bertNormalize, bertWords, isPunctuation, MAX_WORD_CHARS, SPECIAL_TOKENS } from '../../src/lib/models/corpus-embedder/bert-tokens.ts';
import { tokenizerConfigJson, tokenizerJson } from '../../src/lib/models/corpus-embedder/hub-files.ts';
import { buildVocabulary, termCounts } from '../../src/lib/models/corpus-embedder/vocabulary.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { writeModelFiles } from '../helpers/corpus-model.ts';

const TRICKY = [
  'Café naïve Ångström ÉCOLE façade',
  'e.g., (p<0.05) vs. p = 0.001; 10% ± 2.5 — “quoted” ‘single’ don\'t',
  'α-synuclein IL-6/STAT3 β2-microglobulin TNF-α',
  '中文字 and 日本語 mixed with kanji漢字inside',
  'tabs\tand\nnewlines\r\nand\u00a0nbsp\u2003em space',
  'zero\u200bwidth soft\u00adhyphen nul\u0000char bell\u0007 ctrl\u001f',
  'emoji 🧬 DNA 🧪 (test) #hashtag @user https://example.org/a?b=c&d',
  'literal [SEP] and [CLS] and [MASK] tokens, [unk] lower',
  'Ünïcödé ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ ﬁ ligature',
  `${'x'.repeat(MAX_WORD_CHARS + 5)} long word`,
];

function scifactTexts(n: number): string[] {
  const path = resolve(import.meta.dirname, '../../../shared/data/scifact/corpus.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).slice(0, n).map((l) => {
    const d = JSON.parse(l) as { title: string; text: string };
    return `${d.title}\n${d.text}`;
  });
}

let dir: string;
let tokenize: (text: string) => string[];
let encode: (text: string) => number[];
const texts = [...TRICKY, ...scifactTexts(300)];
const extra = ['protein', 'cell'];
const vocab = buildVocabulary([...texts.map((t) => termCounts(bertWords(t))), termCounts(extra)], 1, 1_000_000);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-corpus-tok-'));
  writeModelFiles(dir, 'corpus/tok', { 'tokenizer.json': tokenizerJson(vocab.tokens), 'tokenizer_config.json': tokenizerConfigJson(), 'config.json': new TextEncoder().encode('{"model_type":"bert"}') });
  configureModels({ localModelPath: dir, allowRemote: false });
  const tok = await AutoTokenizer.from_pretrained('corpus/tok');
  tokenize = (t) => tok.tokenize(t);
  encode = (t) => (tok(t, { return_tensor: false }) as unknown as { input_ids: number[] }).input_ids;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bertWords', () => {
  it('normalises as BertNormalizer does: lower case, accents stripped, controls dropped, CJK split', () => {
    expect(bertNormalize('Café ÅNGSTRÖM')).toBe('cafe angstrom');
    expect(bertNormalize('a\u0000b\u200bc\td')).toBe('abc d');
    expect(bertWords('中文 x')).toEqual(['中', '文', 'x']);
    expect(bertWords('IL-6/STAT3, p<0.05.')).toEqual(['il', '-', '6', '/', 'stat3', ',', 'p', '<', '0', '.', '05', '.']);
    expect(bertWords('see [SEP] here')).toEqual(['see', 'here']);
  });

  it('gives exactly the tokens transformers.js gives with the written tokenizer.json', () => {
    expect(texts.length).toBeGreaterThan(TRICKY.length - 1);
    for (const t of texts) {
      // Every word of these texts is a term (minDf 1) except punctuation and over-long words, which are [UNK].
      const mine = bertWords(t).map((w) => (vocab.termRow.has(w) ? w : '[UNK]'));
      const theirs = tokenize(t).filter((w) => !(SPECIAL_TOKENS as readonly string[]).includes(w) || w === '[UNK]');
      expect(theirs, t.slice(0, 60)).toEqual(mine);
      expect(mine.filter((w) => w !== '[UNK]').length).toBeGreaterThan(0);
    }
  });

  it('never makes single punctuation characters or over-long words terms', () => {
    expect(vocab.tokens.slice(0, 5)).toEqual([...SPECIAL_TOKENS]);
    expect(vocab.tokens.some((w) => isPunctuation(w))).toBe(false);
    expect(vocab.tokens.some((w) => w.length > MAX_WORD_CHARS)).toBe(false);
    expect(isPunctuation('—')).toBe(true);
    expect(isPunctuation('α')).toBe(false);
  });

  it('maps an unknown word to [UNK], also when a prefix of it is a term (no ## pieces)', () => {
    const ids = encode('protein proteinsx cellular cell');
    const id = (w: string) => vocab.tokens.indexOf(w);
    expect(ids).toEqual([id('[CLS]'), id('protein'), id('[UNK]'), vocab.termRow.has('cellular') ? id('cellular') : id('[UNK]'), id('cell'), id('[SEP]')]);
  });
});

describe('buildVocabulary', () => {
  it('keeps words of df ≥ minDf, most frequent first, ties in code-unit order, capped at maxVocab', () => {
    const docs = ['b a c , c', 'a b d', 'a e e e', 'b d .'].map((t) => termCounts(bertWords(t)));
    const v = buildVocabulary(docs, 2, 100);
    expect(v.tokens.slice(5)).toEqual(['a', 'b', 'd']); // df a 3, b 3, d 2; c 1 and e 1 dropped; ',' '.' punctuation
    expect(Array.from(v.df)).toEqual([3, 3, 2]);
    const capped = buildVocabulary(docs, 2, 2);
    expect(capped.tokens.slice(5)).toEqual(['a', 'b']);
    expect(capped.eligible).toBe(3);
  });
});
