/** reportPath / reportPathId (src/lib/reports/report-path.ts): a report's file in a synced Hub repo, both ways. */
import { describe, expect, test } from 'vitest';
import { idOfPath } from '../../src/lib/reports/hub-layout.ts';
import { REPORTS_DIR, reportPath, reportPathId } from '../../src/lib/reports/report-path.ts';
import { formatReportRef, parseReportRef } from '../../src/lib/reports/share-link.ts';

describe('report path', () => {
  test('reports/report_<id>.json, and the id read back', () => {
    expect(REPORTS_DIR).toBe('reports');
    expect(reportPath('abc123')).toBe('reports/report_abc123.json');
    expect(reportPathId('reports/report_abc123.json')).toBe('abc123');
    expect(reportPathId(reportPath('x_y-z'))).toBe('x_y-z');
  });
  test('any other path: null (another folder, a sub-folder, another name or extension)', () => {
    for (const p of ['report_abc123.json', 'other/report_abc123.json', 'reports/sub/report_abc123.json', 'reports/index.json', 'reports/report_abc123.json.bak', 'reports/report_.json']) {
      expect(reportPathId(p)).toBeNull();
    }
  });
  test('sync and share links read the same path', () => {
    expect(idOfPath(reportPath('abc123'))).toBe('abc123');
    expect(idOfPath('reports/report___proto__.json')).toBeNull();
    const ref = { repo: 'me/reports', commit: 'a'.repeat(40), path: reportPath('abc123') };
    expect(parseReportRef(formatReportRef(ref).slice('ref='.length))).toEqual({ ok: true, ref });
    expect(parseReportRef(`me/reports@${'a'.repeat(40)}/reports/x.json`)).toEqual({ ok: false, message: 'The report link is not valid: the path must be reports/report_<id>.json.' });
  });
});
