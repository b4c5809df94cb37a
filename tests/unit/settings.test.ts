/** The Settings tab's stored settings (localStorage): defaults, validation, and what the thread setting means. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, parseSettings, threadCount, validateSettings, withDevice } from '../../src/ui/app/settings.ts';

describe('settings', () => {
  it('arxivProxy: empty (off) by default; an http(s) URL without credentials, query or fragment, not arXiv itself', () => {
    expect(DEFAULT_SETTINGS.arxivProxy).toBe('');
    for (const arxivProxy of ['', 'https://proxy.example/arxiv', 'http://127.0.0.1:8787/']) expect(validateSettings({ ...DEFAULT_SETTINGS, arxivProxy }).ok).toBe(true);
    for (const arxivProxy of ['proxy.example', 'https://u:hf_x@proxy.example/', 'https://proxy.example/?token=hf_x', 'https://export.arxiv.org/api/query', 'javascript:alert(1)']) {
      const r = validateSettings({ ...DEFAULT_SETTINGS, arxivProxy });
      expect(r.ok, arxivProxy).toBe(false);
      if (!r.ok) expect(r.message).toMatch(/^arxivProxy: /);
    }
    const stored = parseSettings(JSON.stringify({ ...DEFAULT_SETTINGS, arxivProxy: 'https://proxy.example/?key=1', threads: 2 }));
    expect(stored.settings.arxivProxy).toBe('');
    expect(stored.settings.threads).toBe(2);
    expect(stored.warning).toMatch(/arxivProxy/);
  });

  it('missing fields take their defaults (settings saved before a field existed keep working)', () => {
    const { threads: _t, isolationShim: _i, ...older } = structuredClone(DEFAULT_SETTINGS);
    const { settings, warning } = parseSettings(JSON.stringify({ ...older, autoLoadModels: true }));
    expect(warning).toBeNull();
    expect(settings.threads).toBe('auto');
    expect(settings.isolationShim).toBe(true);
    expect(settings.autoLoadModels).toBe(true);
  });

  it('threads: auto or a whole number 1–16; anything else is refused with the field named', () => {
    for (const threads of ['auto', 1, 16] as const) expect(validateSettings({ ...DEFAULT_SETTINGS, threads }).ok).toBe(true);
    for (const threads of [0, 17, 2.5, '4', null]) {
      const r = validateSettings({ ...DEFAULT_SETTINGS, threads });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(/^threads: /);
    }
    const bad = parseSettings(JSON.stringify({ ...DEFAULT_SETTINGS, threads: 0 }));
    expect(bad.settings.threads).toBe('auto');
    expect(bad.warning).toMatch(/reset/);
  });

  it('isolationShim is a boolean (index.html reads `=== false` before the app starts)', () => {
    expect(validateSettings({ ...DEFAULT_SETTINGS, isolationShim: false }).ok).toBe(true);
    expect(validateSettings({ ...DEFAULT_SETTINGS, isolationShim: 'no' })).toEqual({ ok: false, message: expect.stringMatching(/^isolationShim: /) });
  });

  it('first-visit defaults follow the device: WebGPU fp32, WASM q8 (model ids and the rest kept)', () => {
    const gpu = withDevice(structuredClone(DEFAULT_SETTINGS), 'webgpu');
    for (const k of ['embedder', 'crossEncoder', 'nli'] as const) {
      expect(gpu[k]).toEqual({ id: DEFAULT_SETTINGS[k].id, device: 'webgpu', dtype: 'fp32' });
      expect(withDevice(gpu, 'wasm')[k]).toEqual({ id: DEFAULT_SETTINGS[k].id, device: 'wasm', dtype: 'q8' });
    }
    expect(DEFAULT_SETTINGS.embedder).toMatchObject({ device: 'wasm', dtype: 'q8' });
    expect({ ...gpu, embedder: null, crossEncoder: null, nli: null }).toEqual({ ...DEFAULT_SETTINGS, embedder: null, crossEncoder: null, nli: null });
  });

  it('the thread count a setting means: auto follows the cores, a number is kept, 1 without isolation', () => {
    expect(threadCount('auto', 2, true)).toBe(2);
    expect(threadCount('auto', 12, true)).toBe(4);
    expect(threadCount(8, 2, true)).toBe(8);
    expect(threadCount('auto', 8, false)).toBe(1);
    expect(threadCount(8, 8, false)).toBe(1);
  });
});
