/**
 * A report's name everywhere it is shown (Reports list, the opened report, Compare's pickers, headers and config
 * diff columns, exports, `rag-lab compare`): the user's edited title when there is one, else the title generated
 * from the report itself — kind, dataset or subsets, evaluator or mode, seed and what else tells runs apart. One
 * function makes it, so no two places can name the same report differently.
 *
 * Also here: the short details line of the Reports list and the run fingerprint that tells an identical re-run
 * (same kind, dataset, config hash and rows) from a new one.
 */
import { REPORT_LIMITS, serializeReport, type JsonValue, type Report } from './format.ts';
import type { ReportMeta } from './store-types.ts';

/** What a title is made from: a report (its rows only counted, never read for text). */
export type TitleSource = Pick<Report, 'kind' | 'evaluator' | 'seed' | 'n' | 'data' | 'config' | 'environment' | 'rows' | 'truncated'>;

export const KIND_SHORT: Readonly<Record<Report['kind'], string>> = {
  'ragbench-validate': 'RAGBench', 'ragbench-pipeline': 'RAGBench pipeline', retrieval: 'Retrieval', tune: 'Tune',
};

const SEP = ' · ';
const MAX_LISTED = 3;

const str = (x: JsonValue | undefined): string | null => (typeof x === 'string' && x.trim() ? x.trim() : null);
const obj = (x: JsonValue | undefined): Record<string, JsonValue> => (x !== null && typeof x === 'object' && !Array.isArray(x) ? x : {});

/** "a, b, c" or "a, b, c +2 more". */
function listed(xs: readonly string[]): string {
  return xs.length <= MAX_LISTED ? xs.join(', ') : `${xs.slice(0, MAX_LISTED).join(', ')} +${xs.length - MAX_LISTED} more`;
}

/** The last part of a dataset id ("BeIR/scifact" → "scifact"). */
const shortDataset = (d: string) => d.split('/').filter(Boolean).at(-1) ?? d;

/** The evaluator in words: lexical, NLI, "LLM judge <model>". */
function evaluatorText(r: TitleSource): string {
  if (r.evaluator === 'nli') return 'NLI';
  if (r.evaluator === 'llm') {
    const model = r.environment.judge?.model ?? str(obj(r.config['judge'])['model']);
    return model ? `LLM judge ${model}` : 'LLM judge';
  }
  return r.evaluator;
}

/** Judged queries of a retrieval report: the sample asked for, else the distinct queries of one mode. */
function queryCount(r: TitleSource): number | null {
  if (r.n !== null) return r.n;
  if (r.truncated) return null;
  const first = r.rows[0]?.group;
  return first === undefined ? null : r.rows.filter((x) => x.group === first).length;
}

/** A tune's test set, trials and split, from its config (tune-report.ts): test set label, modes, budget, tuning / held-out queries. */
function tuneParts(r: TitleSource): { testSet: string | null; modes: string[]; trials: number; split: string | null } {
  const split = obj(r.config['split']);
  const [tuning, heldOut] = [split['tuning'], split['heldOut']];
  return {
    testSet: str(obj(r.config['testSet'])['label']),
    modes: Array.isArray(r.config['modes']) ? r.config['modes'].filter((m): m is string => typeof m === 'string') : [],
    trials: r.truncated?.rows ?? r.rows.length,
    split: typeof tuning === 'number' && typeof heldOut === 'number' ? `${tuning} tuning / ${heldOut} held-out queries` : null,
  };
}

/** The title generated from the report (never the user's). */
export function generatedTitle(r: TitleSource): string {
  const parts = [KIND_SHORT[r.kind]];
  if (r.kind === 'tune') {
    const t = tuneParts(r);
    parts.push(shortDataset(r.data.dataset), r.evaluator);
    if (t.testSet) parts.push(`test set ${t.testSet}`);
    parts.push(`${t.trials} ${t.trials === 1 ? 'trial' : 'trials'}`, `seed ${r.seed}`);
    return parts.join(SEP).slice(0, REPORT_LIMITS.title);
  }
  if (r.kind === 'retrieval') {
    parts.push(shortDataset(r.data.dataset));
    const protocol = str(r.config['protocol']);
    if (protocol && protocol !== 'default') parts.push(protocol);
    const q = queryCount(r);
    if (q !== null) parts.push(`${q} ${q === 1 ? 'query' : 'queries'}`);
    parts.push(`seed ${r.seed}`);
    return parts.join(SEP).slice(0, REPORT_LIMITS.title);
  }
  if (r.data.subsets.length) parts.push(listed(r.data.subsets));
  if (r.kind === 'ragbench-pipeline') {
    const rag = obj(r.config['rag']);
    const mode = str(obj(rag['retrieval'])['mode']);
    if (mode) parts.push(mode);
    const llm = r.environment.llm?.model ?? str(obj(rag['llm'])['model']);
    if (llm) parts.push(llm);
  }
  parts.push(evaluatorText(r), `seed ${r.seed}`);
  if (r.n !== null) parts.push(`N ${r.n}`);
  return parts.join(SEP).slice(0, REPORT_LIMITS.title);
}

/** The name shown for a report: the user's title, else the generated one. */
export function reportTitle(r: TitleSource & Pick<Report, 'title'>): string {
  return r.title.trim() || generatedTitle(r);
}

/**
 * A report as a file to keep (`--report-out`): its JSON with the title filled in, the user's or else the generated
 * one, so the file names the run wherever it is read (as the tab's JSON export does).
 */
export function reportFileText(r: Report): string {
  return serializeReport({ ...r, title: reportTitle(r) });
}

/** The Reports list's details line: subsets (or split and modes), evaluator, mode, seed, N. */
export function reportDetails(r: TitleSource): string {
  return detailParts(r).join(SEP).slice(0, 2000);
}

function detailParts(r: TitleSource): string[] {
  if (r.kind === 'tune') {
    const t = tuneParts(r);
    return [`objective ${r.evaluator}`, `test set ${t.testSet ?? '—'}`, `modes ${t.modes.join(', ') || '—'}`, `${t.trials} trials`, t.split ?? 'split —', `seed ${r.seed}`];
  }
  if (r.kind === 'retrieval') {
    const modes = Array.isArray(r.config['modes']) ? r.config['modes'].filter((m): m is string => typeof m === 'string') : [...new Set(r.rows.map((x) => x.group))];
    const protocol = str(r.config['protocol']) ?? 'default';
    return [`split ${r.data.subsets.join(', ') || '—'}`, `modes ${modes.join(', ') || '—'}`, `protocol ${protocol}`, `seed ${r.seed}`,
      r.n === null ? 'all queries' : `${r.n} queries`];
  }
  return [`subsets ${r.data.subsets.join(', ') || '—'}`, `evaluator ${evaluatorText(r)}`, `mode ${r.kind === 'ragbench-pipeline' ? 'pipeline' : 'validate'}`,
    `seed ${r.seed}`, r.n === null ? 'all rows' : `N ${r.n} per subset`];
}

/** The name of a list entry: the user's title, the title generated when it was saved, else one from the entry alone (old records). */
export function metaTitle(m: Pick<ReportMeta, 'title' | 'kind' | 'dataset' | 'evaluator' | 'generated'>): string {
  return m.title.trim() || m.generated || [KIND_SHORT[m.kind], shortDataset(m.dataset), m.evaluator].join(SEP);
}

/** cyrb53: a fast 53-bit string hash (not cryptographic; it only tells row sets apart), as 14 hex digits. */
function hash53(s: string): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

/**
 * What makes two reports the same run: kind, dataset, the config hash (what decides the scores) and the set of rows
 * (their keys, in any order). Two reports with equal fingerprints are an identical re-run.
 */
export function runFingerprint(r: Pick<Report, 'kind' | 'data' | 'configHash' | 'rows' | 'truncated'>): string {
  const keys = r.rows.map((x) => x.key).sort();
  return `${r.kind}|${r.data.dataset}|${r.configHash}|${r.truncated?.rows ?? keys.length}|${hash53(keys.join('\u0000'))}`;
}

/**
 * A re-run taking an older report's place ("replace"): the older one's title and notes (the new run's notes when the
 * older had none), kept when the older one was kept.
 */
export function asReplacement(report: Report, old: Pick<ReportMeta, 'title' | 'notes' | 'draft'>): Report {
  return { ...report, title: old.title, notes: old.notes || report.notes, draft: old.draft && report.draft };
}

/** The saved report (other than `report` itself) that `report` repeats, or null. */
export function duplicateOf(report: Pick<Report, 'id' | 'kind' | 'data' | 'configHash' | 'rows' | 'truncated'>, saved: readonly ReportMeta[]): ReportMeta | null {
  const f = runFingerprint(report);
  return saved.find((m) => m.id !== report.id && m.fingerprint === f) ?? null;
}
