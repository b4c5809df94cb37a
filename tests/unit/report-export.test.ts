/** Report downloads: CSV quoting (RFC 4180) and the formula-injection guard, Markdown content, JSON round trip. */
import { describe, expect, it } from 'vitest';
import { csvCell, csvKeys, mdText, reportCsv, reportFile, reportMarkdown } from '../../src/lib/reports/export.ts';
import { parseReportText } from '../../src/lib/reports/format.ts';
import type { ReportRow } from '../../src/lib/reports/format.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

const validateRows = (n: number): ReportRow[] => Array.from({ length: n }, (_, i) => validateRow(i, (i % 10) / 10, i % 3 !== 0));

/** A minimal RFC 4180 reader (for checking what the writer wrote). */
function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], cell = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; } else cell += c;
  }
  return rows;
}

describe('CSV of rows', () => {
  it('quotes fields with commas, quotes and line breaks, and doubles quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(0.25)).toBe('0.25');
    expect(csvCell(true)).toBe('true');
  });

  it('prefixes text cells starting with = + - @ (or tab / CR) with an apostrophe; numbers stay numbers', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('has one column per score, gold and reference field, one line per row, and reads back', () => {
    const rows = validateRows(3);
    rows[1] = { ...rows[1]!, question: '=cmd|"/c calc"!A1', answer: 'line one\r\nline, two' };
    rows[2]!.reference = { ragas_faithfulness: 0.9 };
    const r = testReport(rows);
    const table = readCsv(reportCsv(r));
    expect(table[0]).toEqual(['key', 'group', 'status', 'question', 'answer', 'error', 'retrieved',
      'score:relevance', 'score:utilization', 'score:adherence', 'score:completeness',
      'gold:relevance', 'gold:utilization', 'gold:completeness', 'gold:adherence', 'reference:ragas_faithfulness']);
    expect(table).toHaveLength(4);
    expect(table[2]![3]).toBe(`'=cmd|"/c calc"!A1`);
    expect(table[2]![4]).toBe('line one\r\nline, two');
    expect(table[2]![9]).toBe('0.1');
    expect(table[1]![13]).toBe('');
    expect(table[1]![14]).toBe('false');
    expect(table[3]![15]).toBe('0.9');
    expect(table[1]![15]).toBe('');
  });
});

describe('CSV row keys', () => {
  it('show no internal separator: "id / generation model", and stay unique', () => {
    const table = readCsv(reportCsv(testReport(validateRows(3))));
    expect(table.slice(1).map((row) => row[0])).toEqual(['emanual:q0 / gpt', 'emanual:q1 / gpt', 'emanual:q2 / gpt']);
    expect(reportCsv(testReport(validateRows(3)))).not.toContain('\u241f');
    expect(csvKeys(['a\u241fb', 'a / b'])).toEqual(['a\u241fb', 'a / b']);
    expect(csvKeys(['q1', 'a\u241fb'])).toEqual(['q1', 'a / b']);
  });
});

describe('Markdown summary', () => {
  it('lists the figures with their intervals, the warnings and the config, with markup and HTML escaped', () => {
    const r = testReport(validateRows(30), { title: '<script>alert(1)</script> | run', notes: 'tuned *k*', warnings: [{ group: null, message: 'judge <b>slow</b>' }] });
    const md = reportMarkdown(r);
    expect(md).toContain('# &lt;script&gt;alert(1)&lt;/script&gt; \\| run');
    expect(md).not.toMatch(/<script>|<b>/);
    const auroc = r.summary.metrics.find((m) => m.id === 'auroc' && m.group === null)!;
    expect(md).toContain(`| all | hallucination AUROC | ${auroc.value!.toFixed(3)} | [${auroc.ci![0].toFixed(3)}, ${auroc.ci![1].toFixed(3)}] | ${auroc.n} |`);
    expect(md).toContain('- judge &lt;b&gt;slow&lt;/b&gt;');
    expect(md).toContain('tuned \\*k\\*');
    expect(md).toContain('- evaluator: `"lexical"`');
    expect(md).toContain('- mode: `"validate"`');
    expect(md).toContain('200 resamples');
    expect(mdText('a\n\nb')).toBe('a b');
  });
});

describe('report files', () => {
  it('JSON is the report itself; names are safe', () => {
    const r = testReport(validateRows(5), { title: 'My run / 2 ☃' });
    const f = reportFile(r, 'json');
    expect(f.name).toBe(`My-run-2-${r.id}.json`);
    const back = parseReportText(f.text);
    expect(back.ok && back.report).toEqual(r);
    expect(reportFile(r, 'csv').type).toBe('text/csv');
    // Untitled: the generated title names the file.
    expect(reportFile({ ...r, title: '' }, 'md').name).toBe(`RAGBench-emanual-lexical-seed-0-${r.id}.md`);
  });
});
