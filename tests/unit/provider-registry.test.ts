/**
 * The provider registry (src/lib/llm/provider-meta.ts) is the one list of providers: every entry, and a fixture entry
 * added here, reaches the derived lists (config validation and the adapter, key bindings, the RAG config's schema,
 * the CLI's --provider choices and help, the default provider) with no other edit.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatResult } from '../../src/lib/llm/types.ts';

vi.mock('../../src/lib/llm/provider-meta.ts', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/lib/llm/provider-meta.ts')>();
  const reply = (model: string | undefined): ChatResult => ({ text: `fixture says hi (${model})`, usage: null, finishReason: 'stop', model: model ?? '' });
  const fixture = {
    id: 'fixture', label: 'Fixture AI', defaultBaseUrl: 'http://127.0.0.1:9/v1', models: ['fx-small'], keyPrefix: 'fx_', needsKey: true,
    keyUrl: null, jsonMode: 'native', baseUrlHint: 'http://127.0.0.1:9/v1', presets: [],
    adapter: (o: { model?: string | undefined }) => ({ id: 'fixture', chat: async () => reply(o.model), stream: async () => reply(o.model) }),
    keyShape: { prefix: 'fx_', noun: 'a Fixture key' }, endpointForm: (u: string) => u, freePlan: true,
  };
  const PROVIDERS = { ...orig.PROVIDERS, fixture } as unknown as typeof orig.PROVIDERS;
  return { ...orig, PROVIDERS, ...orig.derivedProviderLists(PROVIDERS) };
});

const { ALL_PROVIDER_IDS, createProvider, parseProviderConfig, PROVIDER_IDS, PROVIDERS } = await import('../../src/lib/llm/registry.ts');
const { defaultBinding, isRemoteProvider, parseStoredKey } = await import('../../src/lib/llm/key-binding.ts');
const { parseRagConfig } = await import('../../src/lib/rag/config.ts');
const { askCommand } = await import('../../cli/ask.ts');
const { evalRagbenchCommand } = await import('../../cli/eval-ragbench.ts');

const keyOf = (id: string) => `${PROVIDERS[id as 'groq'].keyShape.prefix}LocalTestKey0123456789abcdef`;

async function helpOf(run: (argv: string[]) => Promise<void>): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  await run(['--help']);
  return log.mock.calls.map((c) => String(c[0])).join('\n');
}

afterEach(() => { vi.restoreAllMocks(); });

describe('the provider registry', () => {
  it('lists its entries once, the fixture among them; ALL_PROVIDER_IDS is them and the in-browser model', () => {
    expect(PROVIDER_IDS).toEqual(['groq', 'openai', 'anthropic', 'hf', 'fixture']);
    expect(ALL_PROVIDER_IDS).toEqual([...PROVIDER_IDS, 'browser']);
    for (const id of PROVIDER_IDS) expect(PROVIDERS[id].id).toBe(id);
  });

  it('every provider is validated and built through its entry (the fixture by its own adapter)', async () => {
    for (const id of PROVIDER_IDS) {
      const cfg = parseProviderConfig({ provider: id, model: 'm-1', apiKey: keyOf(id) });
      expect(cfg.provider, id).toBe(id);
      const p = createProvider({ provider: id, model: 'm-1', apiKey: keyOf(id) } as never);
      expect(p.id, id).toBe(id);
      expect(p.label, id).toBe(PROVIDERS[id].label);
      expect(p.config.baseUrl, id).toBe(PROVIDERS[id].defaultBaseUrl);
    }
    const fixture = createProvider({ provider: 'fixture' as 'groq', model: 'fx-small', apiKey: keyOf('fixture') });
    expect((await fixture.chat({ messages: [{ role: 'user', content: 'hi' }], model: '' })).text).toBe('fixture says hi (fx-small)');
    // Its key rules come from the entry: a key is needed, and one of another shape is named by the registry's nouns.
    expect(() => parseProviderConfig({ provider: 'fixture', model: 'm' })).toThrow(/Fixture AI needs an API key \(it starts with "fx_"\)/);
    expect(() => parseProviderConfig({ provider: 'fixture', model: 'm', apiKey: keyOf('groq') })).toThrow(/Fixture AI keys start with "fx_", but this looks like a Groq key/);
    expect(() => parseProviderConfig({ provider: 'groq', model: 'm', apiKey: keyOf('fixture') })).toThrow(/this looks like a Fixture key/);
    expect(() => parseProviderConfig({ provider: 'nope', model: 'm' })).toThrow(`Choose a provider: ${PROVIDER_IDS.join(', ')}.`);
  });

  it('every provider takes a key bound to its default endpoint, and a stored key record of it is read back', () => {
    for (const id of PROVIDER_IDS) {
      expect(isRemoteProvider(id), id).toBe(true);
      const origin = new URL(PROVIDERS[id].defaultBaseUrl).origin;
      expect(defaultBinding(id)).toEqual({ provider: id, origin });
      const back = parseStoredKey(id, { key: keyOf(id), provider: id, origin });
      expect(back.ok && back.value.binding, id).toEqual({ provider: id, origin });
    }
    expect(isRemoteProvider('browser')).toBe(false);
  });

  it('the RAG config accepts every provider id (the in-browser model too) and names them all when one is unknown', () => {
    for (const id of ALL_PROVIDER_IDS) {
      const r = parseRagConfig({ llm: { provider: id, model: 'm-1' } });
      expect(r.ok && r.config.llm.provider, id).toBe(id);
    }
    const bad = parseRagConfig({ llm: { provider: 'nope', model: 'm-1' } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toContain(ALL_PROVIDER_IDS.join(', '));
  });

  it("the CLI's --provider choices and help list every provider", async () => {
    expect(await helpOf(askCommand)).toContain(`--provider ${PROVIDER_IDS.join('|')} `);
    expect(await helpOf(evalRagbenchCommand)).toContain(`--provider ID       ${PROVIDER_IDS.join(' | ')}\n`);
    await expect(askCommand(['a question'])).rejects.toThrow(`--provider is required (${PROVIDER_IDS.join(', ')})`);
  });
});
