/**
 * LLM-as-judge TRACe, after RAGBench's annotation prompt: the documents are shown split into sentences keyed
 * `{doc}{letter}` ('0a', '0b', …, '0z', '0aa' — the keys of RAGBench's `documents_sentences`), the answer split into
 * sentences keyed `r1`, `r2`, …; the judge replies with one JSON object naming the relevant and the utilized
 * document sentences and whether each answer sentence, and the whole answer, is supported. TRACe scores then follow
 * from the keys (trace.ts). Provider-independent: any `ChatProvider` (src/lib/llm/types.ts) in JSON mode.
 *
 * The reply is parsed tolerantly (code fences and text around the object are ignored, trailing commas accepted,
 * keys like "0a." normalised to "0a"), then validated field by field with valibot: a missing or mistyped field gets a
 * safe default and is listed in `defaulted`. A reply with no JSON object at all is a parse failure: its scores are
 * NaN (unknown), never a made-up 0 or 1.
 */
import * as v from 'valibot';
import type { ChatMessage, ChatProvider, TokenUsage } from '../../llm/types.ts';
import { splitSentences } from '../../retrieval/chunk.ts';
import { traceFromKeys, type TraceScores } from './trace.ts';

/** A document as keyed sentences: [[key, text], …]. */
export type KeyedSentences = Array<[string, string]>;

/** Bijective base-26 letters: 0 → 'a', 25 → 'z', 26 → 'aa', 27 → 'ab' (RAGBench's sentence suffixes). */
export function sentenceLetters(i: number): string {
  let n = i + 1;
  let s = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(97 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/** Splits each document into sentences and keys them `{doc}{letters}` as RAGBench does. */
export function keyDocuments(documents: readonly string[]): KeyedSentences[] {
  return documents.map((doc, d) => splitSentences(doc).map((s, i): [string, string] => [`${d}${sentenceLetters(i)}`, s.text]));
}

/** Keys the answer's sentences `r1`, `r2`, … */
export function keyResponse(response: string | readonly string[]): KeyedSentences {
  const sentences = typeof response === 'string' ? splitSentences(response).map((s) => s.text) : [...response];
  return sentences.map((s, i): [string, string] => [`r${i + 1}`, s]);
}

export interface JudgeInput {
  question: string;
  /** Raw documents (split into sentences here) or documents already keyed (e.g. RAGBench's documents_sentences). */
  documents: readonly string[] | readonly (readonly (readonly [string, string])[])[];
  /** The answer, as text (split here) or as its sentences. */
  response: string | readonly string[];
}

function keyedDocuments(docs: JudgeInput['documents']): KeyedSentences[] {
  if (docs.length === 0) return [];
  if (typeof docs[0] === 'string') return keyDocuments(docs as readonly string[]);
  return (docs as readonly (readonly (readonly [string, string])[])[]).map((d) => d.map(([k, t]): [string, string] => [k, t]));
}

export const JUDGE_SYSTEM = 'You are a careful annotator of retrieval-augmented answers. You reply with one JSON object and nothing else.';

export function judgePrompt(question: string, documents: readonly KeyedSentences[], response: KeyedSentences): string {
  const docs = documents.map((d, i) => `Document ${i}:\n${d.map(([k, t]) => `${k}. ${t.trim()}`).join('\n')}`).join('\n\n');
  const answer = response.map(([k, t]) => `${k}. ${t.trim()}`).join('\n');
  return `I asked someone to answer a question based on one or more documents. Your task is to review their response and assess whether or not each sentence in that response is supported by text in the documents, and if so, which sentences in the documents provide that support. You will also tell me which of the document sentences contain useful information for answering the question, and which of them the answer actually used.

Here are the documents, each split into sentences. Each sentence has a key, such as "0a" or "1c" (document number, then letters), that you use to refer to it:
"""
${docs}
"""

The question was:
"""
${question.trim()}
"""

Here is their response, split into sentences. Each sentence has a key, such as "r1" or "r2", that you use to refer to it:
"""
${answer}
"""

Reply with a JSON object matching this schema:
{
  "relevance_explanation": string,
  "all_relevant_sentence_keys": [string],
  "overall_supported_explanation": string,
  "overall_supported": boolean,
  "sentence_support_information": [
    {
      "response_sentence_key": string,
      "explanation": string,
      "supporting_sentence_keys": [string],
      "fully_supported": boolean
    }
  ],
  "all_utilized_sentence_keys": [string]
}

- "all_relevant_sentence_keys": the keys of every document sentence that is relevant to answering the question, whether or not the response used it.
- "sentence_support_information": one entry per response sentence: the document sentence keys that support it and whether it is fully supported by them. A sentence that only restates the question, or says the documents do not contain the answer, counts as supported if that is true.
- "overall_supported": true only if every response sentence is fully supported by the documents.
- "all_utilized_sentence_keys": the keys of every document sentence the response used.
Use only keys shown above. Reply with the JSON object only.`;
}

export function judgeMessages(input: JudgeInput): { messages: ChatMessage[]; documents: KeyedSentences[]; response: KeyedSentences } {
  const documents = keyedDocuments(input.documents);
  const response = keyResponse(input.response);
  return {
    messages: [{ role: 'system', content: JUDGE_SYSTEM }, { role: 'user', content: judgePrompt(input.question, documents, response) }],
    documents,
    response,
  };
}

// ---------------------------------------------------------------------------------------------------- parsing

/** The balanced {...} block of `text` that starts at `start`, aware of JSON strings (braces in strings do not count). */
export function jsonObjectAt(text: string, start: number): string | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/** The first balanced {...} block of `text`. */
export function firstJsonObject(text: string): string | null {
  const start = text.indexOf('{');
  return start < 0 ? null : jsonObjectAt(text, start);
}

/** Removes commas directly before } or ] outside strings. */
export function stripTrailingCommas(json: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += json[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ',') {
      let j = i + 1;
      while (j < json.length && /\s/.test(json[j]!)) j++;
      if (json[j] === '}' || json[j] === ']') continue;
    }
    out += c;
  }
  return out;
}

function parseLenient(block: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(block) };
  } catch {
    try {
      return { ok: true, value: JSON.parse(stripTrailingCommas(block)) };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

/**
 * Parses the first JSON object in a model's reply: code fences and surrounding prose are ignored, and so is a
 * brace block in the prose that is not JSON ("Note {this}: {...}" finds the second block).
 */
export function extractJson(text: string): { value: unknown; error: null } | { value: null; error: string } {
  const unfenced = text.replace(/```(?:json|JSON)?/g, '');
  let firstError: string | null = null;
  for (let start = unfenced.indexOf('{'); start >= 0; start = unfenced.indexOf('{', start + 1)) {
    const block = jsonObjectAt(unfenced, start);
    if (block === null) { firstError ??= 'unbalanced braces'; continue; }
    const r = parseLenient(block);
    if (r.ok) return { value: r.value, error: null };
    firstError ??= r.error;
  }
  return { value: null, error: firstError === null ? 'no JSON object in the reply' : `invalid JSON: ${firstError}` };
}

/** "0a." / " 0A " / "[0a]" → "0a". */
export function normaliseKey(k: string): string {
  return k.trim().replace(/^[[("'`]+|[\])"'`.,;:]+$/g, '').toLowerCase();
}

const Keys = v.pipe(
  v.array(v.union([v.string(), v.number()])),
  v.transform((xs) => [...new Set(xs.map((x) => normaliseKey(String(x))).filter((x) => x !== ''))]),
);
const Bool = v.union([
  v.boolean(),
  v.pipe(v.picklist(['true', 'false', 'True', 'False', 'TRUE', 'FALSE']), v.transform((s) => s.toLowerCase() === 'true')),
]);
const SupportEntry = v.object({
  response_sentence_key: v.fallback(v.pipe(v.union([v.string(), v.number()]), v.transform((x) => normaliseKey(String(x)))), ''),
  explanation: v.fallback(v.string(), ''),
  supporting_sentence_keys: v.fallback(Keys, []),
  fully_supported: v.fallback(v.nullable(Bool), null),
});

const FIELDS = {
  relevance_explanation: v.string(),
  all_relevant_sentence_keys: Keys,
  overall_supported_explanation: v.string(),
  overall_supported: Bool,
  sentence_support_information: v.array(SupportEntry),
  all_utilized_sentence_keys: Keys,
} as const;
type Field = keyof typeof FIELDS;

export interface SentenceSupport {
  response_sentence_key: string;
  explanation: string;
  supporting_sentence_keys: string[];
  /** null when the judge did not say. */
  fully_supported: boolean | null;
}

export interface JudgeReply {
  relevance_explanation: string;
  all_relevant_sentence_keys: string[];
  overall_supported_explanation: string;
  overall_supported: boolean;
  sentence_support_information: SentenceSupport[];
  all_utilized_sentence_keys: string[];
}

export interface ParsedJudgeReply {
  reply: JudgeReply;
  /** True when the reply held no parsable JSON object (then `reply` is all defaults). */
  parseFailed: boolean;
  error: string | null;
  /** Fields that were missing or malformed and got their default. */
  defaulted: Field[];
}

const DEFAULTS = (): JudgeReply => ({
  relevance_explanation: '',
  all_relevant_sentence_keys: [],
  overall_supported_explanation: '',
  overall_supported: false,
  sentence_support_information: [],
  all_utilized_sentence_keys: [],
});

/**
 * Parses and validates a judge reply. Defaults: explanations '', key lists [], support entries []; a missing
 * `overall_supported` is derived from the support entries when every entry says fully_supported (true if all are
 * true, false if any is false), else false — an answer nobody vouched for is not counted as supported.
 */
export function parseJudgeReply(text: string): ParsedJudgeReply {
  const reply = DEFAULTS();
  const all = Object.keys(FIELDS) as Field[];
  const json = extractJson(text);
  if (json.error !== null) return { reply, parseFailed: true, error: json.error, defaulted: all };
  if (typeof json.value !== 'object' || json.value === null || Array.isArray(json.value)) {
    return { reply, parseFailed: true, error: 'the reply is not a JSON object', defaulted: all };
  }
  const obj = json.value as Record<string, unknown>;
  const defaulted: Field[] = [];
  const out = reply as unknown as Record<Field, unknown>;
  for (const f of all) {
    const r = v.safeParse(FIELDS[f], obj[f]);
    if (r.success) out[f] = r.output;
    else defaulted.push(f);
  }
  if (defaulted.includes('overall_supported')) {
    const flags = reply.sentence_support_information.map((s) => s.fully_supported);
    reply.overall_supported = flags.length > 0 && flags.every((f) => f === true);
  }
  return { reply, parseFailed: false, error: null, defaulted };
}

// ---------------------------------------------------------------------------------------------------- judging

export interface JudgeOptions {
  model: string;
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface JudgeResult extends ParsedJudgeReply {
  /** NaN everywhere when the reply could not be parsed. */
  scores: TraceScores;
  raw: string;
  usage: TokenUsage | null;
  documents: KeyedSentences[];
  response: KeyedSentences;
}

const NAN_SCORES: TraceScores = { relevance: NaN, utilization: NaN, adherence: NaN, completeness: NaN };

/** The judge's temperature when none is given. */
export const DEFAULT_JUDGE_TEMPERATURE = 0;

/** Asks the judge once (JSON mode, temperature 0 unless given) and turns its reply into TRACe scores. */
export async function judgeTrace(provider: ChatProvider, input: JudgeInput, opts: JudgeOptions): Promise<JudgeResult> {
  const { messages, documents, response } = judgeMessages(input);
  const res = await provider.chat({
    messages,
    model: opts.model,
    temperature: opts.temperature ?? DEFAULT_JUDGE_TEMPERATURE,
    json: true,
    ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const parsed = parseJudgeReply(res.text);
  const keys = documents.flatMap((d) => d.map(([k]) => k));
  return {
    ...parsed,
    scores: parsed.parseFailed ? { ...NAN_SCORES } : traceFromKeys(keys, parsed.reply),
    raw: res.text,
    usage: res.usage,
    documents,
    response,
  };
}
