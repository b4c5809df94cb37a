/**
 * The JSON files of a corpus-trained embedder in Hub layout, as transformers.js loads a BERT-like feature-extraction
 * model: config.json (model_type 'bert', so AutoModel picks BertModel, whose session needs only input_ids,
 * attention_mask and token_type_ids; `corpus_embedder` says how it was trained), tokenizer.json (WordPiece over the
 * trained words, no `##` pieces, so an unknown word is [UNK]; BertNormalizer, BertPreTokenizer, [CLS] $A [SEP]) and
 * tokenizer_config.json.
 */
import { SPECIAL_TOKENS } from './bert-tokens.ts';
import { dict } from '../../dict.ts';

/**
 * Tokens per input, [CLS] and [SEP] included. The model has no position embeddings, so nothing forces 512: 8,192
 * keeps 800-character chunks (≈ 200 tokens, at most 802) and whole SciFact abstracts (title + text: median 250 tokens,
 * the longest 1,779) uncut.
 */
export const MODEL_MAX_LENGTH = 8192;

/** What config.json's `corpus_embedder` field records. */
export interface CorpusEmbedderInfo {
  method: 'lsi';
  /** Always true: learned from the documents' own words, not a pretrained network. */
  corpus_trained: true;
  dim: number;
  documents: number;
  /** Terms of the SVD (stems under analysis 'stems'). */
  vocabulary: number;
  /** 'words': the SVD counts BERT basic tokens; 'stems': BM25's Porter stems of them, each surface word taking its stem's row. */
  analysis: 'words' | 'stems';
  /** The tokenizer's vocabulary size, special tokens included. */
  tokens: number;
  /** What the documents were (e.g. "BEIR folder scifact"). */
  trained_on: string;
  /** SHA-256 of the training texts (corpus-hash.ts `corpusHashOf`): the corpus the model belongs to. */
  corpus_sha256: string;
  weighting: string;
  token_vectors: string;
  /** β of the token vectors E[w] = idf_w^β · U_k[w]. */
  idf_power: number;
  seed: number;
  min_df: number;
  power_iterations: number;
  oversample: number;
  /** The first singular values (for inspection). */
  singular_values: number[];
  created: string;
}

const json = (o: unknown) => new TextEncoder().encode(`${JSON.stringify(o, null, 2)}\n`);

export function configJson(info: CorpusEmbedderInfo, vocabSize: number): Uint8Array {
  return json({
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: info.dim,
    vocab_size: vocabSize,
    num_hidden_layers: 0,
    num_attention_heads: 1,
    intermediate_size: 0,
    max_position_embeddings: MODEL_MAX_LENGTH,
    type_vocab_size: 2,
    pad_token_id: 0,
    corpus_embedder: info,
  });
}

export function tokenizerJson(tokens: readonly string[]): Uint8Array {
  const vocab = dict<number>();
  tokens.forEach((t, i) => { vocab[t] = i; });
  const id = (t: string) => tokens.indexOf(t);
  const special = (t: string, type = 0) => ({ SpecialToken: { id: t, type_id: type } });
  return json({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((t, i) => ({ id: i, content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]')],
      pair: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]'), { Sequence: { id: 'B', type_id: 1 } }, special('[SEP]', 1)],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  });
}

export function tokenizerConfigJson(): Uint8Array {
  return json({
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: MODEL_MAX_LENGTH,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
    clean_up_tokenization_spaces: true,
  });
}
