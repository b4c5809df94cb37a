/** The report sync settings kept in localStorage (validated on read, off by default) and the status line. */
import { describe, expect, test } from 'vitest';
import { memoKey, parseRepoName, readSyncSettings, statusLine } from '../../src/ui/reports/report-sync.ts';

const memo = { head: 'a'.repeat(40), files: { abcdef12: { oid: 'b'.repeat(40), sha256: 'c'.repeat(64), local: 'd'.repeat(64), commit: 'e'.repeat(40) } } };

describe('sync settings', () => {
  test('nothing stored: sync is off, no repo', () => {
    expect(readSyncSettings(null)).toEqual({ settings: { enabled: false, repo: '', memos: {} }, note: null });
  });

  test('a stored setting round-trips; a memo of what was seen is kept per Hub and repo', () => {
    const key = memoKey('https://huggingface.co/', 'alice/reports');
    expect(key).toBe('https://huggingface.co|alice/reports');
    const { settings, note } = readSyncSettings(JSON.stringify({ enabled: true, repo: 'alice/reports', memos: { [key]: memo } }));
    expect(note).toBeNull();
    expect(settings.enabled).toBe(true);
    expect(settings.repo).toBe('alice/reports');
    expect(JSON.parse(JSON.stringify(settings.memos[key]))).toEqual(memo);
  });

  test('malformed or hostile values reset to off with a note', () => {
    for (const raw of ['{', '[]', JSON.stringify({ enabled: 'yes', repo: 'a/b', memos: {} }), JSON.stringify({ enabled: true, repo: 'https://evil.example/x', memos: {} }),
      JSON.stringify({ enabled: true, repo: 'a/b', memos: { k: { head: 'zz', files: {} } } })]) {
      const r = readSyncSettings(raw);
      expect(r.settings.enabled, raw).toBe(false);
      expect(r.note, raw).toMatch(/reset \(sync is off\)/);
    }
  });

  test('a __proto__ id in a stored memo is dropped, nothing reaches Object.prototype', () => {
    const r = readSyncSettings('{"enabled":true,"repo":"a/b","memos":{"k":{"head":null,"files":{"__proto__":{"oid":"x","polluted":1}}}}}');
    expect(Object.keys(r.settings.memos['k']!.files)).toEqual([]);
    expect(Object.getPrototypeOf(r.settings.memos['k']!.files)).toBeNull();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  test('repo names: owner/name, or a pasted dataset URL', () => {
    expect(parseRepoName(' alice/rag-lab-reports ')).toEqual({ ok: true, repo: 'alice/rag-lab-reports' });
    expect(parseRepoName('https://huggingface.co/datasets/alice/r.1/')).toEqual({ ok: true, repo: 'alice/r.1' });
    for (const bad of ['alice', 'a/b/c', '../x', 'a/..', 'a b/c', '<script>/x']) expect(parseRepoName(bad).ok, bad).toBe(false);
  });

  test('status line', () => {
    const base = { enabled: true, repo: 'alice/r', busy: false, pending: 0, lastCommit: null, lastSyncedAt: null };
    expect(statusLine({ ...base, enabled: false })).toBe('Sync is off: reports are kept in this browser only.');
    expect(statusLine(base)).toBe('Not synced with alice/r yet');
    expect(statusLine({ ...base, lastCommit: '1a2b3c4d5e', lastSyncedAt: '12:30:00', pending: 2 })).toBe('Synced with alice/r at 1a2b3c4 (12:30:00) · 2 changes pending');
    expect(statusLine({ ...base, busy: true, pending: 1 })).toBe('Syncing with alice/r… · 1 change pending');
    expect(statusLine({ ...base, lastCommit: '1a2b3c4d5e', failed: true })).toBe('Last synced with alice/r at 1a2b3c4');
  });
});
