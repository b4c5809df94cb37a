/**
 * Report format v1 (docs/reports.md): the one schema module every reader and writer of a report validates with —
 * the Benchmark tab, the CLI (`--report-out`), the Reports store, Hub sync, imports and share links.
 *
 * A report is one finished benchmark run: its kind, the full config (never a secret) and its hash, the dataset /
 * knowledge base with revisions, seed and N, every row with its scores and gold labels, the summary with 95%
 * bootstrap intervals, the environment that produced it, and the user's title and notes.
 *
 * Reading is defensive: a report is attacker-controlled input (an imported file, a link, another writer's file on
 * the Hub). `parseReport` refuses other formats and newer versions with a message that says so, keys such as
 * `__proto__`, numbers that are not finite (JSON cannot hold NaN; `1e999` parses to Infinity), oversized texts and
 * anything that looks like a key or token. Unknown fields are dropped (valibot objects strip them). Missing values
 * are `null`, never NaN.
 */
import * as v from 'valibot';

export const REPORT_FORMAT = 'rag-lab-report';
export const REPORT_VERSION = 1;
export const REPORT_KINDS = ['ragbench-validate', 'ragbench-pipeline', 'retrieval', 'tune'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** Limits a valid report stays under: above them a file is corrupt or hostile, not a run a tab can show. */
export const REPORT_LIMITS = {
  /** Bytes of a report file's JSON text (imports, Hub downloads). */
  maxBytes: 200 * 1024 * 1024,
  rows: 200_000,
  title: 200,
  notes: 20_000,
  /** Characters of one question, answer, context or error. */
  text: 200_000,
  contexts: 200,
  /** Entries of one scores / gold / reference record, and of the summary's lists. */
  fields: 200,
  listItems: 10_000,
  /** Nesting depth anywhere in a report (rows sit 4 levels down; config and extra may nest below that). */
  jsonDepth: 16,
} as const;

/** Object keys refused anywhere in a report (prototype pollution). */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const finite = v.pipe(v.number(), v.finite());
const int = (min = 0, max = Number.MAX_SAFE_INTEGER) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const nonEmpty = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
const isoDate = v.pipe(v.string(), v.check((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'expected an ISO date'));
/** Metric / field names: short, no spaces or markup. */
const fieldName = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_@.:-]{1,64}$/, 'expected a field name of letters, digits and _@.:-'));
const record = <T extends v.GenericSchema>(value: T) =>
  v.pipe(v.record(fieldName, value), v.check((o) => Object.keys(o).length <= REPORT_LIMITS.fields, `more than ${REPORT_LIMITS.fields} fields`));
const list = <T extends v.GenericSchema>(item: T, max: number = REPORT_LIMITS.listItems) => v.pipe(v.array(item), v.maxLength(max));

/** Report ids: what `newReportId` makes, safe in a file name (`reports/report_<id>.json`) and a link. */
export const REPORT_ID = /^[A-Za-z0-9_-]{6,64}$/;
const reportId = v.pipe(v.string(), v.regex(REPORT_ID, 'expected 6–64 letters, digits, _ or -'));

/** Any JSON value (config, extra): checked for depth and size by `jsonShape` before the schema runs. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
const JsonValueSchema: v.GenericSchema<JsonValue> = v.lazy(() =>
  v.union([v.null(), v.boolean(), finite, v.string(), v.array(JsonValueSchema), v.record(v.string(), JsonValueSchema)]));
const JsonObjectSchema = v.record(v.string(), JsonValueSchema);

/** One evaluated row (a RAGBench row, a pipeline question, a retrieval query). */
export const ReportRowSchema = v.object({
  /** Unique within the report; the same row of the same dataset has the same key in every run (Compare pairs by it). */
  key: nonEmpty(500),
  /** Subset (RAGBench) or dataset (retrieval) the row belongs to. */
  group: text(100),
  question: text(REPORT_LIMITS.text),
  /** The answer that was scored (validate: the dataset's response; pipeline: ours); '' for retrieval. */
  answer: text(REPORT_LIMITS.text),
  /** The documents / contexts the answer was scored against, or the retrieved ids' texts (optional). */
  contexts: v.optional(list(text(REPORT_LIMITS.text), REPORT_LIMITS.contexts)),
  /** Ids retrieved, best first (pipeline and retrieval). */
  retrieved: v.optional(list(text(500), 1000)),
  /** Pipeline: answered | refused | error | …; absent elsewhere. */
  status: v.optional(text(40)),
  /** Why the row has no scores, when it failed. */
  error: v.optional(text(REPORT_LIMITS.text)),
  /** The evaluator's / run's per-row scores (TRACe, recall, nDCG…); null where undefined for the row. */
  scores: record(v.nullable(finite)),
  /** Gold labels (numbers; adherence as a boolean); null where the dataset has none. */
  gold: record(v.nullable(v.union([finite, v.boolean()]))),
  /** Baseline evaluators' scores the dataset carries (ragas_faithfulness, …), for charts. */
  reference: v.optional(record(v.nullable(finite))),
});
export type ReportRow = v.InferOutput<typeof ReportRowSchema>;

/** One summary figure: `group` null is over all rows of the report (pooled), else one subset. */
export const SummaryMetricSchema = v.object({
  id: fieldName,
  group: v.nullable(text(100)),
  value: v.nullable(finite),
  /** 95% percentile-bootstrap interval (summary.bootstrap), null where no resample gave a number. */
  ci: v.nullable(v.tuple([finite, finite])),
  /** Rows the figure rests on. */
  n: int(),
});
export type SummaryMetric = v.InferOutput<typeof SummaryMetricSchema>;

export const ReportSummarySchema = v.object({
  metrics: list(SummaryMetricSchema),
  /** Baseline evaluators' figures on the same rows (validate): e.g. {group, evaluator: 'ragas', metric: 'auroc'}. */
  baselines: list(v.object({ group: v.nullable(text(100)), evaluator: fieldName, metric: fieldName, value: v.nullable(finite) })),
  /** Figures resting on too few rows and similar cautions, shown next to the figures. */
  warnings: list(v.object({ group: v.nullable(text(100)), message: text(2000) })),
  bootstrap: v.object({ iterations: int(0, 1_000_000), seed: v.pipe(v.number(), v.integer()), level: v.pipe(v.number(), v.gtValue(0), v.ltValue(1)) }),
  /** Run notes: failed rows, skipped rows, cache notes, judge usage in words. */
  notes: list(text(5000)),
  /** Kind-specific figures (judge usage and consistency, statuses, knowledge-base sizes…). */
  extra: JsonObjectSchema,
});
export type ReportSummary = v.InferOutput<typeof ReportSummarySchema>;

export const ReportEnvironmentSchema = v.object({
  /** APP_VERSION of the app or CLI that ran it. */
  app: text(100),
  runtime: v.picklist(['browser', 'node']),
  /** navigator.userAgent or `node vX (platform)`. */
  agent: text(500),
  models: list(v.object({
    task: text(50), id: text(300), dtype: v.nullable(text(20)), device: v.nullable(text(20)),
    /** A corpus-trained embedder: the corpus it was trained on (title) and the SHA-256 of its training texts. */
    trainedOn: v.optional(text(300)), corpusSha256: v.optional(v.nullable(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)))),
    /** Whether that corpus is the run's dataset (a retrieval run). */
    thisDataset: v.optional(v.boolean()),
  }), 20),
  /** The answering LLM (pipeline), the judge (LLM-judge evaluator): provider and model names only. */
  llm: v.nullable(v.object({ provider: text(50), model: text(300) })),
  judge: v.nullable(v.object({ provider: text(50), model: text(300) })),
});
export type ReportEnvironment = v.InferOutput<typeof ReportEnvironmentSchema>;

export const ReportSchema = v.object({
  format: v.literal(REPORT_FORMAT),
  version: v.literal(REPORT_VERSION),
  id: reportId,
  kind: v.picklist(REPORT_KINDS),
  title: text(REPORT_LIMITS.title),
  notes: text(REPORT_LIMITS.notes),
  createdAt: isoDate,
  /** Saved automatically when a run finished, not yet kept by the user. */
  draft: v.boolean(),
  /** The evaluator: lexical | nli | llm (validate, pipeline), the retrieval mode (retrieval), or the objective (tune). */
  evaluator: text(50),
  /** The full configuration that ran, without secrets (BenchConfig-like; CLI flags mapped to the same names). */
  config: JsonObjectSchema,
  /** Hash of what decides the scores (the result cache's config hash). */
  configHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{8,64}$/, 'expected 8–64 lower-case hex digits')),
  data: v.object({
    /** rungalileo/ragbench, BeIR/scifact, …: reports of different datasets are not compared. */
    dataset: nonEmpty(200),
    /** Dataset revision (commit sha) when known; null for local files. */
    revision: v.nullable(text(100)),
    /** Subsets (RAGBench) or the split (retrieval). */
    subsets: list(text(100), 100),
    /** Where the rows came from: hub | viewer | local | embedded. */
    source: text(50),
    /** The knowledge base answered from (kbConfigKey), null when none (validate). */
    kb: v.nullable(text(500)),
  }),
  /** Sample seed (also the bootstrap seed); rows requested per subset (null: all). */
  seed: v.pipe(v.number(), v.integer()),
  n: v.nullable(int(1)),
  rows: list(ReportRowSchema, REPORT_LIMITS.rows),
  /** Present when only some rows are included (a share link's summary): how many rows the full report has. */
  truncated: v.optional(v.object({ rows: int() })),
  summary: ReportSummarySchema,
  environment: ReportEnvironmentSchema,
});
export type Report = v.InferOutput<typeof ReportSchema>;

export type ReportParse = { ok: true; report: Report } | { ok: false; message: string };

/** Why a report, anywhere in it, has a forbidden key or nests too deep; null when none. Sizes are the schema's. */
export function jsonShapeProblem(x: unknown): string | null {
  const walk = (o: unknown, path: string, depth: number): string | null => {
    if (o === null || typeof o !== 'object') return null;
    if (depth > REPORT_LIMITS.jsonDepth) return `nested deeper than ${REPORT_LIMITS.jsonDepth} levels at ${path || 'the top'}`;
    for (const k of Object.keys(o)) {
      if (FORBIDDEN_KEYS.has(k)) return `a forbidden key "${k}" at ${path || 'the top'}`;
      const r = walk((o as Record<string, unknown>)[k], path ? `${path}.${k}` : k, depth + 1);
      if (r) return r;
    }
    return null;
  };
  return walk(x, '', 0);
}

/** Key names that hold secrets, and values that look like one (HF, OpenAI, Groq, Anthropic keys; bearer tokens). */
const SECRET_KEY = /(^|_|-)(api[-_]?key|apikey|token|access[-_]?token|secret|password|authorization)$/i;
const SECRET_VALUE = /\b(hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|gsk_[A-Za-z0-9]{20,}|Bearer\s+[A-Za-z0-9._-]{16,})/;

/** Paths in `x` whose key names a secret (with a non-empty value) or whose string value looks like a key. */
export function secretPaths(x: unknown): string[] {
  const out: string[] = [];
  const walk = (o: unknown, path: string) => {
    if (typeof o === 'string') { if (SECRET_VALUE.test(o)) out.push(path || 'the top'); return; }
    if (o === null || typeof o !== 'object') return;
    for (const [k, val] of Object.entries(o)) {
      const p = path ? `${path}.${k}` : k;
      if (SECRET_KEY.test(k) && val !== null && val !== '' && val !== false) out.push(p);
      else walk(val, p);
    }
  };
  walk(x, '');
  return out;
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${issue.message}`;
}

/**
 * Validates a parsed JSON value as a report v1. Another format, an older or newer version, forbidden keys, a
 * secret, non-finite numbers and oversized fields each give a message that names the field at fault.
 */
export function parseReport(raw: unknown): ReportParse {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, message: 'Not a RAG Lab report: expected a JSON object.' };
  const o = raw as Record<string, unknown>;
  if (o['format'] !== REPORT_FORMAT) return { ok: false, message: `Not a RAG Lab report (format is ${JSON.stringify(o['format'] ?? null)?.slice(0, 60)}, expected "${REPORT_FORMAT}").` };
  const ver = o['version'];
  if (typeof ver === 'number' && Number.isInteger(ver) && ver > REPORT_VERSION) {
    return { ok: false, message: `This report is format v${ver}, newer than this app reads (v${REPORT_VERSION}): open it with a newer RAG Lab.` };
  }
  if (ver !== REPORT_VERSION) return { ok: false, message: `Unknown report version ${JSON.stringify(ver ?? null)?.slice(0, 30)} (this app reads v${REPORT_VERSION}).` };
  const shape = jsonShapeProblem(raw);
  if (shape) return { ok: false, message: `The report was refused: ${shape}.` };
  const secrets = secretPaths({ config: o['config'], environment: o['environment'], title: o['title'], notes: o['notes'] });
  if (secrets.length) return { ok: false, message: `The report was refused: ${secrets.slice(0, 3).join(', ')} holds what looks like a key or token (reports never carry secrets).` };
  const r = v.safeParse(ReportSchema, raw);
  if (!r.success) return { ok: false, message: `The report is not valid: ${describeIssue(r.issues[0])}${r.issues.length > 1 ? ` (and ${r.issues.length - 1} more)` : ''}.` };
  // `truncated.rows` is the full report's row count: a summary cannot hold more rows than that.
  const t = r.output.truncated;
  if (t && t.rows < r.output.rows.length) return { ok: false, message: `The report is not valid: truncated.rows: it says the full report has ${t.rows} rows, but this one holds ${r.output.rows.length}.` };
  return { ok: true, report: r.output };
}

/** Parses a report file's text: size cap first, then JSON, then `parseReport`. */
export function parseReportText(textIn: string, what = 'The file'): ReportParse {
  if (textIn.length > REPORT_LIMITS.maxBytes) return { ok: false, message: `${what} is larger than ${REPORT_LIMITS.maxBytes / 1024 / 1024} MB: not a report this app opens.` };
  let raw: unknown;
  try {
    raw = JSON.parse(textIn);
  } catch (e) {
    return { ok: false, message: `${what} is not JSON (${(e as Error).message.slice(0, 200)}).` };
  }
  return parseReport(raw);
}

/** A report's JSON text as files and downloads hold it (two-space indent is for people; rows stay one per line). */
export function serializeReport(r: Report): string {
  const { rows, ...rest } = r;
  const head = JSON.stringify({ ...rest, rows: [] }, null, 1);
  return `${head.slice(0, head.lastIndexOf('"rows": []'))}"rows": [\n${rows.map((x) => JSON.stringify(x)).join(',\n')}\n]${head.slice(head.lastIndexOf('"rows": []') + 10)}`;
}

/** A new report id: 16 url-safe random characters. */
export function newReportId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
