/**
 * The in-browser model's prompt (browser.ts): the tokenizer's chat template with the generation prompt; when the
 * template refuses a system message it is merged into the first user message; a tokenizer without a template gets a
 * plain "System: … / User: … / Assistant:" transcript. JSON mode adds an instruction and, unless turned off, a '{'
 * prefill.
 */
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import type { ChatMessage } from './types.ts';

export const BROWSER_JSON_INSTRUCTION =
  'Respond with a single valid JSON object and nothing else: no prose before or after it, no Markdown code fences.';

export function hasChatTemplate(tokenizer: PreTrainedTokenizer): boolean {
  const t = (tokenizer as unknown as { chat_template?: unknown }).chat_template;
  return (typeof t === 'string' && t.trim() !== '') || (typeof t === 'object' && t !== null);
}

const ROLE_NAMES: Readonly<Record<ChatMessage['role'], string>> = { system: 'System', user: 'User', assistant: 'Assistant' };

/** The transcript used when the tokenizer has no chat template: "System: …\n\nUser: …\n\nAssistant:". */
export function plainChatPrompt(messages: readonly ChatMessage[]): string {
  return `${messages.map((m) => `${ROLE_NAMES[m.role]}: ${m.content}`).join('\n\n')}\n\nAssistant:`;
}

/** The messages with the JSON instruction added to the system prompt (or as a new first system message). */
export function withBrowserJsonInstruction(messages: readonly ChatMessage[]): ChatMessage[] {
  const out = messages.map((m) => ({ role: m.role, content: m.content }));
  const sys = out.find((m) => m.role === 'system');
  if (sys) sys.content = `${sys.content}\n\n${BROWSER_JSON_INSTRUCTION}`;
  else out.unshift({ role: 'system', content: BROWSER_JSON_INSTRUCTION });
  return out;
}

/** System messages merged into the first user message (for templates that reject the system role). */
function systemIntoUser(messages: readonly ChatMessage[]): ChatMessage[] {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const rest = messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content }));
  if (system.length === 0) return rest;
  const first = rest.find((m) => m.role === 'user');
  if (first) first.content = `${system.join('\n\n')}\n\n${first.content}`;
  else rest.unshift({ role: 'user', content: system.join('\n\n') });
  return rest;
}

export interface BuiltPrompt {
  /** The text given to the tokenizer (prefill included). */
  text: string;
  /** 'template': the tokenizer's chat template; 'template-no-system': the same with system merged into user; 'plain'. */
  format: 'template' | 'template-no-system' | 'plain';
  /** Whether the tokenizer adds its special tokens (only for the plain format: templates write their own). */
  addSpecialTokens: boolean;
  /** Text the reply is forced to start with ('{' in JSON mode with prefill, else ''). */
  prefill: string;
}

/** The prompt text for a request (chat template when the tokenizer has one). */
export function buildBrowserPrompt(
  tokenizer: PreTrainedTokenizer,
  messages: readonly ChatMessage[],
  o: { json?: boolean | undefined; jsonPrefill?: boolean | undefined } = {},
): BuiltPrompt {
  const msgs = o.json ? withBrowserJsonInstruction(messages) : messages.map((m) => ({ role: m.role, content: m.content }));
  const prefill = o.json && (o.jsonPrefill ?? true) ? '{' : '';
  if (hasChatTemplate(tokenizer)) {
    const render = (m: ChatMessage[]) =>
      tokenizer.apply_chat_template(m as never, { tokenize: false, add_generation_prompt: true }) as unknown as string;
    try {
      return { text: render(msgs) + prefill, format: 'template', addSpecialTokens: false, prefill };
    } catch {
      // Some templates (Gemma, Mistral v1) raise on a system message; retry without one, then give up on templates.
      if (msgs.some((m) => m.role === 'system')) {
        try {
          return { text: render(systemIntoUser(msgs)) + prefill, format: 'template-no-system', addSpecialTokens: false, prefill };
        } catch {
          /* the plain transcript below */
        }
      }
    }
  }
  return { text: plainChatPrompt(msgs) + prefill, format: 'plain', addSpecialTokens: true, prefill };
}
