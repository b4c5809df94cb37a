/**
 * A report as files to download: JSON (the report itself, serializeReport), CSV of its rows (RFC 4180: fields with
 * a comma, quote, CR or LF are quoted and quotes doubled, lines end with CRLF; one column per score, gold and
 * reference field; a retrieval row's mode and query id), and a Markdown summary (metrics with their 95% intervals,
 * one line per mode for a multi-mode retrieval report, never pooled over modes; a tune's verdict and held-out figures;
 * baselines, warnings, notes, config).
 *
 * Spreadsheet formula injection: a text cell starting with = + - @ (or a tab / CR) would run as a formula in Excel
 * or LibreOffice, so it gets a leading apostrophe. Numbers are written by us and are not prefixed (-0.5 stays a
 * number).
 */
import { serializeReport, type JsonValue, type Report, type ReportRow, type SummaryMetric } from './format.ts';
import { groupsArePipelines, pipelineWarnings, reportFigures, rowPipeline } from './pipelines.ts';
import { metricDef } from './metrics.ts';
import { reportTitle } from './title.ts';
import { agreementText, tuneSummary, type TuneSummary } from './tune-extra.ts';

export type ExportKind = 'json' | 'csv' | 'md';
export interface ExportFile { name: string; type: string; text: string }

const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: guarded against formulas when it is text, quoted when it must be (RFC 4180). */
export function csvCell(x: string | number | boolean | null | undefined): string {
  if (x === null || x === undefined) return '';
  let s = typeof x === 'string' ? (FORMULA_START.test(x) ? `'${x}` : x) : String(x);
  if (/[",\r\n]/.test(s)) s = `"${s.replace(/"/g, '""')}"`;
  return s;
}

const fieldsOf = (rows: readonly ReportRow[], pick: (r: ReportRow) => Record<string, unknown> | undefined): string[] => {
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(pick(r) ?? {})) seen.add(k);
  return [...seen];
};

/**
 * Row keys as the CSV's key column shows them: a RAGBench key joins the row id and the generation model with an
 * internal separator (U+241F, "␟"), written as " / " ("covidqa_12 / gpt-3.5-turbo"). Keys stay unique: when that
 * would make two keys of the report alike, they are written as they are.
 */
export function csvKeys(keys: readonly string[]): string[] {
  const shown = keys.map((k) => k.replaceAll('\u241f', ' / '));
  return new Set(shown).size === new Set(keys).size ? shown : [...keys];
}

/**
 * The rows as CSV: key (csvKeys), group, [mode, query_id,] status, question, answer, error, retrieved
 * (space-separated), score:*, gold:*, reference:*. A retrieval report's rows name their mode and query id
 * (pipelines.ts `rowPipeline`), so a spreadsheet averages one mode's rows, never several.
 */
export function reportCsv(report: Report): string {
  const scores = fieldsOf(report.rows, (r) => r.scores);
  const gold = fieldsOf(report.rows, (r) => r.gold);
  const refs = fieldsOf(report.rows, (r) => r.reference);
  const byMode = report.kind === 'retrieval';
  const head = ['key', 'group', ...(byMode ? ['mode', 'query_id'] : []), 'status', 'question', 'answer', 'error', 'retrieved', ...scores.map((k) => `score:${k}`), ...gold.map((k) => `gold:${k}`), ...refs.map((k) => `reference:${k}`)];
  const lines = [head.map(csvCell).join(',')];
  const keys = csvKeys(report.rows.map((r) => r.key));
  for (const [i, r] of report.rows.entries()) {
    const p = rowPipeline(report, r);
    lines.push([
      keys[i], r.group, ...(byMode ? [p.pipeline, p.item] : []), r.status ?? '', r.question, r.answer, r.error ?? '', (r.retrieved ?? []).join(' '),
      ...scores.map((k) => r.scores[k]), ...gold.map((k) => r.gold[k]), ...refs.map((k) => r.reference?.[k]),
    ].map(csvCell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Text in a Markdown table cell or line: no markup, no raw HTML, no line breaks, pipes escaped. */
export function mdText(s: string): string {
  return s.replace(/[\\`*_[\]<>|#&]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`)).replace(/\s*[\r\n]+\s*/g, ' ');
}

const fmt = (x: number | null, digits: number) => (x === null ? 'n/a' : x.toFixed(digits));

/** Config as `key: value` lines, nested keys dotted (values as JSON). */
function configLines(config: Record<string, JsonValue>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, val] of Object.entries(config)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (val !== null && typeof val === 'object' && !Array.isArray(val)) out.push(...configLines(val, key));
    else out.push(`- ${mdText(key)}: \`${JSON.stringify(val).replace(/`/g, "'")}\``);
  }
  return out;
}

/** A cell "0.4123 [0.3900, 0.4300]" of a figure (n/a where none). */
const figureCell = (m: SummaryMetric, d: number) => `${fmt(m.value, d)}${m.ci ? ` [${fmt(m.ci[0], d)}, ${fmt(m.ci[1], d)}]` : ''}`;

/** A tune's figures: its verdict, then each setting measured on the held-out queries against the current settings. */
function tuneLines(t: TuneSummary, head: string, digits: number): string[] {
  const ci = (c: [number, number] | null) => (c ? `[${fmt(c[0], digits)}, ${fmt(c[1], digits)}]` : 'n/a');
  const signed = (x: number | null) => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`);
  const lines = [head, '', ...(t.verdict ? [mdText(t.verdict), ''] : []),
    `| setting | flags | ${mdText(t.objective)} | 95% CI | Δ vs current | Δ 95% CI | p (Holm) | wins / ties / losses | N |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  for (const h of t.heldOut) {
    const wtl = h.wtl ? `${h.wtl.wins} / ${h.wtl.ties} / ${h.wtl.losses}` : '—';
    lines.push(`| ${mdText(h.group)} | ${mdText(h.label)} | ${fmt(h.value, digits)} | ${ci(h.ci)} | ${h.group === 'current' ? '—' : signed(h.delta)} | ${h.group === 'current' ? '—' : ci(h.deltaCi)} | ${h.pHolm === null ? '—' : h.pHolm.toFixed(3)} | ${wtl} | ${h.n} |`);
  }
  if (t.learnedAlpha) lines.push('', mdText(t.learnedAlpha));
  if (t.agreement) lines.push('', `Agreement of the test sets: ${mdText(agreementText(t.agreement))}.`);
  if (t.adoptable === false) lines.push('', `Not adoptable: the test set is ${mdText(t.testSetLabel ?? 'not labelled queries')} and the agreement check with labelled queries did not pass.`);
  return lines;
}

/**
 * The metrics section: a report whose groups are pipelines (a multi-mode retrieval report) gets one line per mode,
 * a column per figure, and no pooled line (pipelines.ts `reportFigures`); any other report one line per (group,
 * figure), "all" being its one pipeline over every subset.
 */
function metricLines(report: Report): string[] {
  const s = report.summary;
  const head = `## Metrics (${Math.round(s.bootstrap.level * 100)}% bootstrap intervals, ${s.bootstrap.iterations} resamples)`;
  const label = (id: string) => mdText(metricDef(report.kind, id)?.label ?? id);
  const digits = (id: string) => metricDef(report.kind, id)?.digits ?? 3;
  const tune = tuneSummary(report);
  if (tune) return tuneLines(tune, `## Held-out figures (${Math.round(s.bootstrap.level * 100)}% paired-bootstrap intervals, ${s.bootstrap.iterations} resamples of the queries)`, digits(tune.objective));
  if (groupsArePipelines(report)) {
    const modes = reportFigures(report);
    const ids: string[] = [];
    for (const p of modes) for (const m of p.figures) if (!ids.includes(m.id)) ids.push(m.id);
    const lines = [head, '', 'One line per retrieval mode: each figure is over that mode\'s queries (N), never pooled over modes.', '',
      `| mode | N | ${ids.map(label).join(' | ')} |`, `| ${['---', '---', ...ids.map(() => '---')].join(' | ')} |`];
    for (const p of modes) {
      const n = Math.max(0, ...p.figures.map((m) => m.n));
      lines.push(`| ${mdText(p.pipeline ?? '')} | ${n} | ${ids.map((id) => { const m = p.figures.find((x) => x.id === id); return m ? figureCell(m, digits(id)) : 'n/a'; }).join(' | ')} |`);
    }
    return lines;
  }
  const lines = [head, '', '| group | metric | value | 95% CI | N |', '| --- | --- | --- | --- | --- |'];
  for (const m of s.metrics) {
    const d = digits(m.id);
    lines.push(`| ${m.group === null ? 'all' : mdText(m.group)} | ${label(m.id)} | ${fmt(m.value, d)} | ${m.ci ? `[${fmt(m.ci[0], d)}, ${fmt(m.ci[1], d)}]` : 'n/a'} | ${m.n} |`);
  }
  return lines;
}

/** A Markdown summary: what ran, the figures with their intervals (per pipeline: metricLines), warnings, notes, config. */
export function reportMarkdown(report: Report): string {
  const s = report.summary;
  const lines = [
    `# ${mdText(reportTitle(report))}`, '',
    `- kind: ${report.kind}`, `- evaluator: ${mdText(report.evaluator)}`,
    `- dataset: ${mdText(report.data.dataset)}${report.data.revision ? ` @ ${mdText(report.data.revision)}` : ''}${report.data.subsets.length ? ` (${report.data.subsets.map(mdText).join(', ')})` : ''}`,
    `- rows: ${report.truncated?.rows ?? report.rows.length}${report.truncated ? ` (${report.rows.length} included)` : ''}; seed ${report.seed}`,
    `- created: ${mdText(report.createdAt)}; app ${mdText(report.environment.app)} (${report.environment.runtime})`,
    `- config hash: ${report.configHash}; id: ${report.id}`,
  ];
  if (report.notes.trim()) lines.push('', '## Notes', '', mdText(report.notes));
  lines.push('', ...metricLines(report));
  if (s.baselines.length) {
    lines.push('', '## Baselines', '', '| group | evaluator | metric | value |', '| --- | --- | --- | --- |');
    for (const b of s.baselines) lines.push(`| ${b.group === null ? 'all' : mdText(b.group)} | ${mdText(b.evaluator)} | ${mdText(b.metric)} | ${fmt(b.value, 3)} |`);
  }
  const warnings = pipelineWarnings(report);
  if (warnings.length) lines.push('', '## Warnings', '', ...warnings.map((w) => `- ${w.group === null ? '' : `${mdText(w.group)}: `}${mdText(w.message)}`));
  if (s.notes.length) lines.push('', '## Run notes', '', ...s.notes.map((n) => `- ${mdText(n)}`));
  lines.push('', '## Config', '', ...configLines(report.config));
  return `${lines.join('\n')}\n`;
}

/** A file name part from a title: letters, digits, - and _ only. */
function slug(report: Report): string {
  const base = reportTitle(report).normalize('NFKD').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `${base || 'report'}-${report.id}`;
}

/** The download of `report` as `kind`. */
export function reportFile(report: Report, kind: ExportKind): ExportFile {
  // The JSON file carries the name it is shown under (an untitled report's generated title), so another app reads it too.
  if (kind === 'json') return { name: `${slug(report)}.json`, type: 'application/json', text: serializeReport({ ...report, title: reportTitle(report) }) };
  if (kind === 'csv') return { name: `${slug(report)}.csv`, type: 'text/csv', text: reportCsv(report) };
  return { name: `${slug(report)}.md`, type: 'text/markdown', text: reportMarkdown(report) };
}
