import { describe, expect, it } from 'vitest';
import { configDiff } from '../../src/lib/reports/compare.ts';
import { settingOfPath } from '../../src/lib/reports/config-settings.ts';
import { RAG_RETRIEVAL_SETTINGS, RAG_SETTINGS } from '../../src/lib/settings/rag.ts';
import { RUN_SETTINGS } from '../../src/lib/settings/retrieval-run.ts';
import { singleModeReport } from '../helpers/retrieval-reports.ts';

describe("Compare's config diff names what each setting is, from its declaration", () => {
  it("finds a retrieval run's settings under the names the report records, and the pipeline's settings", () => {
    for (const [key, s] of Object.entries(RUN_SETTINGS)) {
      const path = key === 'pool' ? 'config.growPool' : key === 'chunkSize' || key === 'overlap' ? `config.chunking.${key}` : `config.${key}`;
      expect(settingOfPath(path), key).toBe(s);
    }
    for (const [key, s] of Object.entries(RAG_RETRIEVAL_SETTINGS)) expect(settingOfPath(`config.rag.retrieval.${key}`), key).toBe(s);
    expect(settingOfPath('config.rag.llm.model')).toBe(RAG_SETTINGS['llm.model']);
    for (const p of ['evaluator', 'config.noise', 'config.rag.llm.apiKey', 'config.rag.version', 'config.toString', 'data.dataset']) expect(settingOfPath(p), p).toBeUndefined();
  });

  it('a diff row of a declared setting carries its one line', () => {
    const a = singleModeReport('sparse', [0.5, 0.4], { id: 'a' }), b = singleModeReport('sparse', [0.5, 0.4], { id: 'b' });
    const rows = configDiff([{ ...a, config: { ...a.config, candidateK: 20 } }, { ...b, config: { ...b.config, candidateK: 100 } }]);
    const row = rows.find((r) => r.path === 'config.candidateK')!;
    expect(row).toMatchObject({ differs: true, describe: RUN_SETTINGS.candidateK.describe });
    expect(rows.find((r) => r.path === 'evaluator')).not.toHaveProperty('describe');
  });
});
