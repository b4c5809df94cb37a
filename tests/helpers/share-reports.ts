/**
 * Reports for share-link tests: a RAGBench validate run with `subsets × perSubset` rows of generated text (seeded,
 * so every run makes the same report), built and validated by `buildReport` (through `testReport`).
 */
import type { Report, ReportRow } from '../../src/lib/reports/format.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { testReport } from './reports.ts';

const WORDS = 'the model answer context retrieval document evidence claim support score ranking query passage dataset label judge metric sample token window chunk'.split(' ');

export function words(rand: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`${WORDS[Math.floor(rand() * WORDS.length)]}${Math.floor(rand() * 100)}`);
  return out.join(' ');
}

export interface TestReportOptions {
  subsets?: string[];
  perSubset?: number;
  /** Words in each answer (questions have a tenth, contexts twice as many). */
  answerWords?: number;
  contexts?: number;
  seed?: number;
  title?: string;
  config?: Report['config'];
  id?: string;
}

export function validateReport(o: TestReportOptions = {}): Report {
  const subsets = o.subsets ?? ['covidqa', 'hotpotqa'];
  const per = o.perSubset ?? 10;
  const rand = seededRandom(o.seed ?? 7);
  const aw = o.answerWords ?? 40;
  const rows: ReportRow[] = [];
  for (const g of subsets) {
    for (let i = 0; i < per; i++) {
      const adherence = rand();
      rows.push({
        key: `${g}:${i}`, group: g, question: `${words(rand, Math.max(3, aw / 10))}?`, answer: words(rand, aw),
        contexts: Array.from({ length: o.contexts ?? 3 }, () => words(rand, aw * 2)),
        scores: { adherence, relevance: rand(), utilization: rand(), completeness: rand() },
        gold: { adherence: rand() < 0.6, relevance: rand(), utilization: rand(), completeness: rand() },
      });
    }
  }
  return testReport(rows, {
    configHash: 'abcdef12', seed: 1, n: per, iterations: 50, createdAt: new Date().toISOString(),
    config: o.config ?? { mode: 'validate', evaluator: 'lexical', subsets, n: per },
    title: o.title ?? 'share test', ...(o.id ? { id: o.id } : {}),
  });
}
