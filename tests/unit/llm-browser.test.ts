/**
 * The in-browser model provider (src/lib/llm/browser.ts) on the tiny generator fixture, loaded offline from
 * tests/fixtures/models (scripts/make-fixture-models.py --generator).
 *
 * The fixture's logits favour token (last id + 1) mod V, so greedy decoding counts upwards from the prompt's last
 * token. Its chat template ends the prompt with <|assistant|>, followed in the vocabulary by the ten tokens of
 * "The answer is forty-two, counted in a café." and then <|end|> (EOS). Prompts are byte-level with no merges:
 * one token per byte, one per special token.
 */
import { AutoModelForCausalLM, AutoTokenizer, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_DEFAULT_MODEL,
  BrowserModelProvider,
  defaultGeneratorDtype,
  disposeBrowserModels,
  resolveGeneratorSpec,
} from '../../src/lib/llm/browser.ts';
import { BROWSER_JSON_INSTRUCTION, buildBrowserPrompt, plainChatPrompt, withBrowserJsonInstruction } from '../../src/lib/llm/browser-prompt.ts';
import { ProviderError } from '../../src/lib/llm/errors.ts';
import { ALL_PROVIDER_IDS, BROWSER_PROVIDER, createProvider, parseBrowserConfig, PROVIDER_IDS, PROVIDERS } from '../../src/lib/llm/registry.ts';
import type { ChatMessage } from '../../src/lib/llm/types.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { ModelLoadError } from '../../src/lib/models/errors.ts';
import type { FileProgress } from '../../src/lib/models/types.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const GEN = 'rag-lab/tiny-generator';
const ANSWER = 'The answer is forty-two, counted in a café.';
/** What each answer token adds to the text ('Ġcaf' + 'Ã' and '©.' split the two bytes of 'é'). */
const ANSWER_DELTAS = ['The', ' answer', ' is', ' forty', '-two,', ' counted', ' in', ' a', ' caf', 'é.'];
const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'hello' },
];

let tok: PreTrainedTokenizer;
let vocab: Record<string, number>;
let tmp: string;

const utf8 = (s: string) => new TextEncoder().encode(s).length;
/** Template tokens: per message <|role|> \n content <|end|> \n, then <|assistant|>. */
const templateTokens = (msgs: readonly ChatMessage[]) => msgs.reduce((n, m) => n + 4 + utf8(m.content), 0) + 1;
/** Greedy continuation of a prompt by the fixture's rule, up to EOS (included) or `max` tokens. */
function continuation(promptIds: readonly number[], max: number): number[] {
  const V = Object.keys(vocab).length;
  const eos = new Set([vocab['<|end|>']!, vocab['<|endoftext|>']!]);
  const out: number[] = [];
  let last = promptIds.at(-1)!;
  while (out.length < max) {
    last = (last + 1) % V;
    out.push(last);
    if (eos.has(last)) break;
  }
  return out;
}
const decode = (ids: number[]) => tok.decode(ids, { skip_special_tokens: true, clean_up_tokenization_spaces: false });

beforeAll(async () => {
  configureModels({ localModelPath: FIXTURES, allowRemote: false });
  tok = await AutoTokenizer.from_pretrained(GEN);
  vocab = (JSON.parse(readFileSync(join(FIXTURES, GEN, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
  // A copy without a chat template, for the plain transcript format.
  tmp = mkdtempSync(join(tmpdir(), 'rag-lab-gen-'));
  const plain = join(tmp, 'rag-lab', 'tiny-generator-plain');
  cpSync(join(FIXTURES, GEN), plain, { recursive: true });
  const tc = JSON.parse(readFileSync(join(plain, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  delete tc['chat_template'];
  writeFileSync(join(plain, 'tokenizer_config.json'), JSON.stringify(tc));
});

afterAll(async () => {
  await disposeBrowserModels();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the fixture (checked independently of the provider)', () => {
  it('renders the chat template and counts upwards to the answer', () => {
    const text = tok.apply_chat_template(MESSAGES as never, { tokenize: false, add_generation_prompt: true }) as unknown as string;
    expect(text).toBe('<|system|>\nBe brief.<|end|>\n<|user|>\nhello<|end|>\n<|assistant|>');
    const ids = tok.encode(text, { add_special_tokens: false });
    expect(ids).toHaveLength(templateTokens(MESSAGES));
    expect(ids.at(-1)).toBe(vocab['<|assistant|>']);
    const next = continuation(ids, 100);
    expect(next.at(-1)).toBe(vocab['<|end|>']);
    expect(decode(next)).toBe(ANSWER);
  });

  it('is decoded incrementally through its KV cache: transformers.js feeds past values and position ids', async () => {
    const model = await AutoModelForCausalLM.from_pretrained(GEN, { dtype: 'fp32', device: 'cpu' });
    try {
      const enc = tok('<|user|>\nhi<|end|>\n<|assistant|>', { add_special_tokens: false }) as unknown as Record<string, Tensor>;
      const out = (await model.generate({ ...enc, max_new_tokens: 4, return_dict_in_generate: true } as never)) as unknown as {
        sequences: Tensor;
        past_key_values: Record<string, Tensor>;
      };
      expect(out.sequences.dims).toEqual([1, 11]);
      // present.0.value = past value ++ position ids: 7 prompt tokens, then the first 3 generated ones one at a time.
      const value = out.past_key_values['past_key_values.0.value']!;
      expect(value.dims).toEqual([1, 1, 10, 1]);
      expect(Array.from(value.data as Float32Array)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await model.dispose();
    }
  });
});

describe('BrowserModelProvider on the tiny generator', () => {
  const provider = new BrowserModelProvider({ model: GEN });

  it('loads on the CPU with q8 by default under Node, with the chat template and context length', async () => {
    const progress: FileProgress[] = [];
    const p = new BrowserModelProvider({ model: GEN, onProgress: (e) => progress.push(e) });
    const info = await p.load();
    expect(info).toEqual({ id: GEN, device: 'cpu', dtype: 'q8', contextLength: 256, chatTemplate: true });
    expect(progress.at(-1)).toMatchObject({ model: GEN, status: 'ready' });
  });

  it('chat() returns the exact greedy continuation, stop reason and token usage', async () => {
    const res = await provider.chat({ model: '', messages: MESSAGES, maxTokens: 64 });
    const prompt = tok.encode(tok.apply_chat_template(MESSAGES as never, { tokenize: false, add_generation_prompt: true }) as unknown as string, {
      add_special_tokens: false,
    });
    const expected = continuation(prompt, 64);
    expect(res.text).toBe(decode(expected));
    expect(res.text).toBe(ANSWER);
    expect(res.finishReason).toBe('stop');
    expect(res.partial).toBeUndefined();
    expect(res.model).toBe(GEN);
    // 23 prompt tokens; 11 generated: the ten answer tokens and <|end|>.
    expect(res.usage).toEqual({ inputTokens: templateTokens(MESSAGES), outputTokens: ANSWER_DELTAS.length + 1 });
    expect(res.usage!.inputTokens).toBe(23);
  });

  it('fp32 (model.onnx) and q8 (model_quantized.onnx) give the same answer', async () => {
    for (const dtype of ['fp32', 'q8'] as const) {
      const p = new BrowserModelProvider({ model: GEN, dtype, device: 'cpu' });
      expect((await p.load()).dtype).toBe(dtype);
      expect((await p.chat({ model: '', messages: [{ role: 'user', content: 'Why?' }], temperature: 0 })).text).toBe(ANSWER);
    }
  });

  it('the answer does not depend on the question (the rule looks at the last token only), the prompt length does', async () => {
    const res = await provider.chat({ model: GEN, messages: [{ role: 'user', content: 'What is six times seven?' }] });
    expect(res.text).toBe(ANSWER);
    expect(res.usage).toEqual({ inputTokens: 4 + 24 + 1, outputTokens: 11 });
  });

  it('stream() delivers one delta per token that concatenate to the chat() text; a split character is held back', async () => {
    const deltas: string[] = [];
    const res = await provider.stream({ model: '', messages: MESSAGES }, (e) => deltas.push(e.delta));
    expect(deltas).toEqual(ANSWER_DELTAS);
    expect(deltas.join('')).toBe(res.text);
    expect(res.text).toBe(ANSWER);
    expect(deltas.some((d) => d.includes('\uFFFD'))).toBe(false);
    expect(res.finishReason).toBe('stop');
    expect(res.usage).toEqual({ inputTokens: 23, outputTokens: 11 });
  });

  it('respects maxTokens (finishReason length) and drops a character cut in half', async () => {
    const four = await provider.chat({ model: '', messages: MESSAGES, maxTokens: 4 });
    expect(four).toMatchObject({ text: 'The answer is forty', finishReason: 'length', usage: { inputTokens: 23, outputTokens: 4 } });
    const deltas: string[] = [];
    const nine = await provider.stream({ model: '', messages: MESSAGES, maxTokens: 9 }, (e) => deltas.push(e.delta));
    // Token 9 is ' caf' + the first byte of 'é': the incomplete byte is not part of the text.
    expect(nine).toMatchObject({ text: 'The answer is forty-two, counted in a caf', finishReason: 'length', usage: { outputTokens: 9 } });
    expect(deltas.join('')).toBe(nine.text);
    const one = await provider.chat({ model: '', messages: MESSAGES, maxTokens: 1 });
    expect(one).toMatchObject({ text: 'The', finishReason: 'length', usage: { outputTokens: 1 } });
  });

  it('abort mid-generation keeps the partial text with finishReason aborted', async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const res = await provider.stream({ model: '', messages: MESSAGES, signal: controller.signal }, (e) => {
      deltas.push(e.delta);
      if (deltas.length === 3) controller.abort();
    });
    // The signal stops generation after the token being processed: exactly three tokens.
    expect(deltas).toEqual(['The', ' answer', ' is']);
    expect(res).toMatchObject({
      text: 'The answer is',
      finishReason: 'aborted',
      partial: true,
      interruption: 'signal',
      usage: { inputTokens: 23, outputTokens: 3 },
      model: GEN,
    });
    expect(res.interruptionMessage).toMatch(/cancelled/);
    // The model is usable afterwards.
    expect((await provider.chat({ model: '', messages: MESSAGES })).text).toBe(ANSWER);
  });

  it('an already aborted signal: stream() resolves empty and partial, chat() rejects as aborted (like HTTP providers)', async () => {
    const controller = new AbortController();
    controller.abort();
    const deltas: string[] = [];
    const res = await provider.stream({ model: '', messages: MESSAGES, signal: controller.signal }, (e) => deltas.push(e.delta));
    expect(res).toMatchObject({ text: '', finishReason: 'aborted', partial: true, interruption: 'signal', usage: null });
    expect(deltas).toEqual([]);
    const err = await provider.chat({ model: '', messages: MESSAGES, signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'aborted', provider: 'browser', retryable: false });
  });

  it('JSON mode: instruction in the system prompt and a "{" prefill that the reply continues', async () => {
    const withInstruction = withBrowserJsonInstruction(MESSAGES);
    expect(withInstruction[0]).toEqual({ role: 'system', content: `Be brief.\n\n${BROWSER_JSON_INSTRUCTION}` });
    expect(withBrowserJsonInstruction([{ role: 'user', content: 'x' }])[0]).toEqual({ role: 'system', content: BROWSER_JSON_INSTRUCTION });

    const deltas: string[] = [];
    const res = await provider.stream({ model: '', messages: MESSAGES, json: true, maxTokens: 3 }, (e) => deltas.push(e.delta));
    // '{' is byte 0x7B; counting on gives '|', '}', '~'.
    expect(res.text).toBe('{|}~');
    expect(deltas).toEqual(['{', '|', '}', '~']);
    expect(res.usage).toEqual({ inputTokens: templateTokens(withInstruction) + 1, outputTokens: 3 });

    const noPrefill = new BrowserModelProvider({ model: GEN, jsonPrefill: false });
    const plainJson = await noPrefill.chat({ model: '', messages: MESSAGES, json: true });
    expect(plainJson.text).toBe(ANSWER);
    expect(plainJson.usage!.inputTokens).toBe(templateTokens(withInstruction));
  });

  it('caps the reply at the context (256 tokens) and rejects a prompt that does not fit', async () => {
    const content = 'a'.repeat(246); // 4 + 246 + 1 = 251 prompt tokens: room for 5
    const res = await provider.chat({ model: '', messages: [{ role: 'user', content }], maxTokens: 50 });
    expect(res).toMatchObject({ text: 'The answer is forty-two,', finishReason: 'length', usage: { inputTokens: 251, outputTokens: 5 } });
    const err = await provider.chat({ model: '', messages: [{ role: 'user', content: 'a'.repeat(300) }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'bad-request', provider: 'browser' });
    expect((err as Error).message).toMatch(/305 tokens.*at most 256/);
  });

  it('runs concurrent requests one at a time, each with its own result', async () => {
    const [a, b, c] = await Promise.all([
      provider.chat({ model: '', messages: MESSAGES, maxTokens: 2 }),
      provider.chat({ model: '', messages: MESSAGES }),
      provider.stream({ model: '', messages: MESSAGES, maxTokens: 3 }, () => {}),
    ]);
    expect(a.text).toBe('The answer');
    expect(b.text).toBe(ANSWER);
    expect(c.text).toBe('The answer is');
  });

  it('a throwing onDelta stops generation and rejects with that error', async () => {
    const boom = new Error('consumer failed');
    let calls = 0;
    const err = await provider
      .stream({ model: '', messages: MESSAGES }, () => {
        calls++;
        throw boom;
      })
      .catch((e: unknown) => e);
    expect(err).toBe(boom);
    expect(calls).toBe(1);
  });

  it('validates requests', async () => {
    await expect(provider.chat({ model: '', messages: [] })).rejects.toMatchObject({ kind: 'config', provider: 'browser' });
    await expect(provider.chat({ model: '', messages: MESSAGES, maxTokens: 0 })).rejects.toMatchObject({ kind: 'config' });
    expect(() => new BrowserModelProvider({ defaultMaxTokens: 0 })).toThrow(ProviderError);
  });

  it('a model that is not in the local folder fails with a ModelLoadError (offline)', async () => {
    const p = new BrowserModelProvider({ model: 'rag-lab/no-such-generator' });
    const err = await p.chat({ model: '', messages: MESSAGES }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect(err).toMatchObject({ kind: 'offline', modelId: 'rag-lab/no-such-generator', file: 'config.json' });
  });
});

describe('prompt formats', () => {
  it('plain transcript when the tokenizer has no chat template', async () => {
    expect(plainChatPrompt(MESSAGES)).toBe('System: Be brief.\n\nUser: hello\n\nAssistant:');
    configureModels({ localModelPath: tmp, allowRemote: false });
    try {
      const p = new BrowserModelProvider({ model: 'rag-lab/tiny-generator-plain' });
      expect((await p.load()).chatTemplate).toBe(false);
      const res = await p.chat({ model: '', messages: MESSAGES, maxTokens: 5 });
      // The prompt ends with ':' (0x3A); counting on: ';', '<', '=', '>', '?'.
      expect(res.text).toBe(';<=>?');
      expect(res.usage).toEqual({ inputTokens: utf8(plainChatPrompt(MESSAGES)), outputTokens: 5 });
      await p.dispose();
    } finally {
      configureModels({ localModelPath: FIXTURES, allowRemote: false });
    }
  });

  it('merges system messages into the first user message when the template refuses them', () => {
    const strict = Object.create(tok) as PreTrainedTokenizer & { chat_template: string };
    strict.chat_template =
      "{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}" +
      "{{ '<|' + m['role'] + '|>' + m['content'] }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}";
    expect(buildBrowserPrompt(strict, MESSAGES)).toEqual({
      text: '<|user|>Be brief.\n\nhello<|assistant|>',
      format: 'template-no-system',
      addSpecialTokens: false,
      prefill: '',
    });
    expect(buildBrowserPrompt(tok, MESSAGES, { json: true })).toMatchObject({ format: 'template', prefill: '{' });
    expect(buildBrowserPrompt(tok, MESSAGES, { json: true }).text.endsWith('<|assistant|>{')).toBe(true);
    const broken = Object.create(tok) as PreTrainedTokenizer & { chat_template: string };
    broken.chat_template = "{{ raise_exception('no') }}";
    expect(buildBrowserPrompt(broken, MESSAGES)).toMatchObject({ format: 'plain', addSpecialTokens: true, text: plainChatPrompt(MESSAGES) });
  });
});

describe('device and dtype defaults', () => {
  it('q4f16 / q4 on WebGPU, q8 on WASM and the CPU; auto is the CPU under Node', async () => {
    expect(defaultGeneratorDtype('webgpu', true)).toBe('q4f16');
    expect(defaultGeneratorDtype('webgpu', false)).toBe('q4');
    expect(defaultGeneratorDtype('wasm', true)).toBe('q8');
    expect(defaultGeneratorDtype('cpu', false)).toBe('q8');
    expect(await resolveGeneratorSpec('m')).toEqual({ id: 'm', device: 'cpu', dtype: 'q8' });
    expect(await resolveGeneratorSpec('m', 'cpu', 'fp32')).toEqual({ id: 'm', device: 'cpu', dtype: 'fp32' });
    expect(new BrowserModelProvider().model).toBe(BROWSER_DEFAULT_MODEL);
  });
});

describe('registry: createProvider({ provider: "browser" })', () => {
  it('builds the in-browser provider, fills in the model, and answers', async () => {
    const p = createProvider({ provider: 'browser', model: GEN });
    expect(p.id).toBe('browser');
    expect(p.label).toBe(BROWSER_PROVIDER.label);
    expect(p.model).toBe(GEN);
    expect(JSON.parse(JSON.stringify(p))).toEqual({ provider: 'browser', baseUrl: '', model: GEN, hasApiKey: false });
    expect(await p.load()).toMatchObject({ id: GEN, device: 'cpu', dtype: 'q8' });
    const res = await p.chat({ model: '', messages: MESSAGES });
    expect(res).toMatchObject({ text: ANSWER, model: GEN, finishReason: 'stop' });
    const deltas: string[] = [];
    expect((await p.stream({ model: '', messages: MESSAGES, maxTokens: 2 }, (e) => deltas.push(e.delta))).text).toBe('The answer');
    expect(deltas).toEqual(['The', ' answer']);
  });

  it('passes options.browser on (dtype, JSON prefill) and ignores baseUrl and apiKey', async () => {
    const p = createProvider(
      { provider: 'browser', model: ` ${GEN} `, baseUrl: 'https://example.com', apiKey: 'hf_NotSentAnywhere123' },
      { browser: { dtype: 'fp32', jsonPrefill: false } },
    );
    expect(p.toJSON()).toEqual({ provider: 'browser', baseUrl: '', model: GEN, hasApiKey: false });
    expect(JSON.stringify(p)).not.toContain('hf_');
    expect((await p.load()).dtype).toBe('fp32');
    expect((await p.chat({ model: '', messages: MESSAGES, json: true })).text).toBe(ANSWER);
  });

  it('validates the browser config; the HTTP provider lists are unchanged', () => {
    expect(parseBrowserConfig({ provider: 'browser' })).toEqual({ provider: 'browser', model: BROWSER_DEFAULT_MODEL });
    expect(parseBrowserConfig({ provider: 'browser', model: '  ' })).toEqual({ provider: 'browser', model: BROWSER_DEFAULT_MODEL });
    expect(createProvider({ provider: 'browser' }).model).toBe(BROWSER_PROVIDER.defaultModel);
    expect(() => createProvider({ provider: 'browser', model: 'two words' })).toThrow(/model: A model name contains no spaces/);
    expect(() => parseBrowserConfig({ provider: 'browser', model: 42 })).toThrow(ProviderError);
    expect(BROWSER_PROVIDER.models[0]).toBe(BROWSER_PROVIDER.defaultModel);
    expect(Object.isFrozen(BROWSER_PROVIDER.models)).toBe(true);
    expect(ALL_PROVIDER_IDS).toEqual([...PROVIDER_IDS, 'browser']);
    expect(Object.keys(PROVIDERS)).not.toContain('browser');
  });
});
