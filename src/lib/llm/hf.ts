/**
 * Hugging Face Inference Providers through the router's OpenAI-compatible chat completions
 * (`https://router.huggingface.co/v1/chat/completions`, `Authorization: Bearer hf_…`).
 *
 * Model ids are Hub ids, optionally with a provider or policy suffix: `meta-llama/Llama-3.1-8B-Instruct`,
 * `…:cerebras`, `…:fastest`. A fine-grained token needs the "Make calls to Inference Providers" permission; gated
 * models also need their licence accepted on the Hub. HF answers 402 when the monthly credits are used up (mapped to
 * a 'rate-limit' ProviderError that is not retried).
 */
import { configError } from './errors.ts';
import { OpenAICompatibleProvider } from './openai-compatible.ts';
import type { HttpProviderOptions } from './http-transport.ts';

export const HF_DEFAULT_BASE_URL = 'https://router.huggingface.co/v1';
export const HF_KEY_PREFIX = 'hf_';
export const HF_AUTH_HINT =
  'Hugging Face tokens start with "hf_"; a fine-grained token needs the "Make calls to Inference Providers" permission, and gated models need their licence accepted on the model page.';

export interface HuggingFaceProviderOptions extends HttpProviderOptions {
  /** Ask for usage in the last stream chunk (default true). */
  includeUsage?: boolean | undefined;
}

export class HuggingFaceProvider extends OpenAICompatibleProvider {
  constructor(opts: HuggingFaceProviderOptions = {}) {
    if (!opts.apiKey?.trim()) {
      throw configError('hf', `Hugging Face needs an access token (it starts with "${HF_KEY_PREFIX}"; create one at https://huggingface.co/settings/tokens).`);
    }
    super({
      ...opts,
      id: 'hf',
      label: 'Hugging Face',
      baseUrl: opts.baseUrl ?? HF_DEFAULT_BASE_URL,
      keyPrefix: HF_KEY_PREFIX,
      authHint: HF_AUTH_HINT,
    });
  }
}
