/**
 * The RAG pipeline's settings are declared once (src/lib/settings/rag.ts RAG_SETTINGS): every field of a RagConfig
 * is one declaration, and each reaches the default config, the config's checks, the Ask tab's link, `ask`'s and
 * `eval-ragbench`'s flags with their help and ranges, and Compare's descriptions.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { askCommand } from '../../cli/ask.ts';
import { evalRagbenchCommand } from '../../cli/eval-ragbench.ts';
import { applyRagFlags, RAG_FLAG_ARGS } from '../../cli/rag-flags.ts';
import { FLAG_RANGES } from '../../src/lib/eval/core/flag-ranges.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG, fromUrlParams, parseRagConfig, toUrlParams } from '../../src/lib/rag/config.ts';
import { settingOfPath } from '../../src/lib/reports/config-settings.ts';
import { RAG_SETTINGS, setValueAt, valueAt } from '../../src/lib/settings/rag.ts';
import { valueText, type Setting } from '../../src/lib/settings/schema.ts';

const entries = Object.entries(RAG_SETTINGS) as Array<[string, Setting]>;

/** A valid value other than the default (as text too), and one the setting refuses. */
function samples(path: string, s: Setting): { good: string | number | boolean; bad: string | number } {
  if (s.type === 'enum') return { good: s.choices!.find((x) => x !== s.default)!, bad: 'bogus' };
  if (s.type === 'boolean') return { good: !s.default, bad: 'maybe' };
  if (s.type === 'string') return path === 'llm.baseUrl' ? { good: 'http://127.0.0.1:9/v1', bad: 'ftp://h.example/v1' } : { good: 'model-x', bad: 'x'.repeat(201) };
  // the middle of the range, or three quarters up when the middle is the default (α's 0.5)
  const mid = (s.min! + s.max!) / 2;
  return { good: s.type === 'int' ? s.max! : mid === s.default ? (s.min! + 3 * s.max!) / 4 : mid, bad: s.max! + 1 };
}

/** Every leaf of a config, by path (`rerank.topN`). */
function leaves(o: object, prefix = ''): string[] {
  return Object.entries(o).flatMap(([k, x]) => (x !== null && typeof x === 'object' ? leaves(x as object, `${prefix}${k}.`) : [`${prefix}${k}`]));
}

afterEach(() => vi.restoreAllMocks());

async function helpOf(run: (argv: string[]) => Promise<void>): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  await run(['--help']);
  return log.mock.calls.map((c) => String(c[0])).join('\n');
}

describe('every RAG pipeline setting, declared once', () => {
  it('is a field of the config, in its order, with its default; the config has no field left undeclared', () => {
    expect(leaves(DEFAULT_RAG_CONFIG).filter((p) => p !== 'version')).toEqual(entries.map(([p]) => p));
    for (const [path, s] of entries) expect(valueAt(DEFAULT_RAG_CONFIG, path), path).toBe(s.default);
  });

  it("is checked by the config's schema, which names the field and keeps the rest", () => {
    for (const [path, s] of entries) {
      const { good, bad } = samples(path, s);
      const c = cloneConfig(DEFAULT_RAG_CONFIG) as unknown as Record<string, unknown>;
      setValueAt(c, path, good);
      if (path === 'rerank.topN') setValueAt(c, 'retrieval.topK', 50);
      const ok = parseRagConfig(c);
      expect(ok.ok && valueAt(ok.config, path), path).toBe(good);
      setValueAt(c, path, bad);
      const refused = parseRagConfig(c);
      expect(refused.ok, path).toBe(false);
      if (!refused.ok) expect(refused.errors.join(' '), path).toContain(`${path}: `);
    }
  });

  it("round-trips through the Ask tab's link under its parameter; a refused value is named and the default kept", () => {
    const params = entries.filter(([, s]) => s.url !== undefined);
    expect(params.map(([p]) => p)).toEqual(entries.map(([p]) => p));
    for (const [path, s] of params) {
      const { good, bad } = samples(path, s);
      const c = cloneConfig(DEFAULT_RAG_CONFIG);
      setValueAt(c, path, good);
      expect(toUrlParams(c).toString(), path).toBe(new URLSearchParams({ [s.url!]: valueText(good) }).toString());
      expect(valueAt(fromUrlParams(toUrlParams(c)).config, path), path).toBe(good);
      const refused = fromUrlParams(new URLSearchParams({ [s.url!]: String(bad) }));
      expect(valueAt(refused.config, path), path).toBe(s.default);
      expect(refused.warnings.join(' '), path).toContain(s.url!);
    }
  });

  it("is a flag of ask and eval-ragbench where it declares one: in both helps, parsed, refused out of range, in FLAG_RANGES", async () => {
    const helps = [await helpOf(askCommand), await helpOf(evalRagbenchCommand)];
    const flagged = entries.filter(([p, s]) => s.flag !== undefined && p !== 'retrieval.mode');
    expect(Object.keys(RAG_FLAG_ARGS).sort()).toEqual(flagged.map(([, s]) => s.flag!).sort());
    expect(flagged.map(([p]) => p)).toEqual(expect.arrayContaining(['retrieval.topK', 'retrieval.candidateK', 'transform.kind', 'transform.n', 'rerank.topN', 'window', 'agentic', 'grading.model']));
    for (const [path, s] of flagged) {
      for (const help of helps) expect(help, path).toMatch(new RegExp(`^  --${s.flag}\\b`, 'm'));
      const { good, bad } = samples(path, s);
      const c = cloneConfig(DEFAULT_RAG_CONFIG);
      c.agentic = true;
      const given = s.type === 'boolean' ? { [s.flag!]: true } : { [s.flag!]: valueText(good) };
      expect(valueAt(applyRagFlags(c, given), path), path).toBe(s.type === 'boolean' ? true : good);
      if (s.type !== 'boolean') expect(() => applyRagFlags(cloneConfig(c), { [s.flag!]: String(bad) }), path).toThrow(`--${s.flag} must be`);
      if (s.type === 'int' || s.type === 'number') {
        const r = FLAG_RANGES[s.flag!]!;
        expect(r.min <= s.min! && r.max >= s.max!, path).toBe(true);
      }
    }
  });

  it('--rerank N turns the rerank on; grading flags need --agentic', () => {
    const c = applyRagFlags(cloneConfig(DEFAULT_RAG_CONFIG), { rerank: '2' });
    expect(c.rerank).toEqual({ enabled: true, topN: 2 });
    expect(() => applyRagFlags(cloneConfig(DEFAULT_RAG_CONFIG), { 'grader-model': 'small' })).toThrow('--grader-model grades the agentic loop');
    expect(() => applyRagFlags(cloneConfig(DEFAULT_RAG_CONFIG), { 'grade-each': true })).toThrow('--grade-each grades the agentic loop');
  });

  it("is described in Compare's config diff under its path in a pipeline report", () => {
    for (const [path, s] of entries) expect(settingOfPath(`config.rag.${path}`), path).toBe(s);
    expect(settingOfPath('config.rag.version')).toBeUndefined();
  });
});
