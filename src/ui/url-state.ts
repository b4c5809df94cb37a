/**
 * The Search tab's state in the page URL (`?q=…&mode=…`), so a search is a shareable link and nothing typed is
 * lost on reload. Unknown or invalid values fall back to defaults, blank ones count as absent, repeated parties
 * are kept once — each with a warning for the user.
 */
import * as v from 'valibot';
import { blankWarning, isBlank, repeatedParamWarnings, uniqueList } from '../lib/link-params.ts';
import { CALIBRATIONS, type Calibration } from '../lib/retrieval/calibrate.ts';
import { isMode, type RetrievalMode } from '../lib/retrieval/modes.ts';
import { DEFAULT_SEARCH } from '../lib/retrieval/search.ts';

export interface SearchUrlState {
  q: string;
  mode: RetrievalMode;
  topK: number;
  candidateK: number;
  calibration: Calibration;
  /** Rejection threshold; null = the mode's default (`DEFAULT_REJECT_THRESHOLDS`). */
  threshold: number | null;
  yearMin: number | null;
  yearMax: number | null;
  parties: string[];
}

export const DEFAULT_URL_STATE: Readonly<SearchUrlState> = Object.freeze({
  q: '',
  mode: DEFAULT_SEARCH.mode,
  topK: DEFAULT_SEARCH.topK,
  candidateK: DEFAULT_SEARCH.candidateK,
  calibration: DEFAULT_SEARCH.calibration,
  threshold: null,
  yearMin: null,
  yearMax: null,
  parties: [],
});

/** The URL parameters the Search tab owns. */
export const SEARCH_PARAMS: ReadonlySet<string> = new Set(['q', 'mode', 'k', 'ck', 'cal', 'thr', 'ymin', 'ymax', 'party']);

/** Longest query kept in the URL (and searched). */
export const MAX_QUERY_CHARS = 10_000;
/** Longest party name kept from a link. */
const MAX_PARTY_CHARS = 100;

const IntIn = (lo: number, hi: number) => v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(lo), v.maxValue(hi));
const NumIn = (lo: number, hi: number) => v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(lo), v.maxValue(hi));

const FIELDS = {
  k: { key: 'topK', schema: IntIn(1, 100) },
  ck: { key: 'candidateK', schema: IntIn(1, 1000) },
  thr: { key: 'threshold', schema: NumIn(0, 1) },
  ymin: { key: 'yearMin', schema: IntIn(0, 3000) },
  ymax: { key: 'yearMax', schema: IntIn(0, 3000) },
} as const;

export function parseUrlState(search: string): { state: SearchUrlState; warnings: string[] } {
  const p = new URLSearchParams(search);
  const state: SearchUrlState = { ...DEFAULT_URL_STATE, parties: [] };
  const warnings: string[] = repeatedParamWarnings(p, [...SEARCH_PARAMS].filter((k) => k !== 'party'));
  const q = p.get('q');
  if (q !== null) {
    state.q = q.slice(0, MAX_QUERY_CHARS);
    if (q.length > MAX_QUERY_CHARS) warnings.push(`The query in the link was cut to ${MAX_QUERY_CHARS} characters.`);
  }
  const mode = p.get('mode');
  if (mode !== null && isBlank(mode)) warnings.push(blankWarning('mode', state.mode));
  else if (mode !== null) {
    if (isMode(mode)) state.mode = mode;
    else warnings.push(`Unknown mode "${mode}" in the link; using ${state.mode}.`);
  }
  const cal = p.get('cal');
  if (cal !== null && isBlank(cal)) warnings.push(blankWarning('cal', state.calibration));
  else if (cal !== null) {
    if ((CALIBRATIONS as readonly string[]).includes(cal)) state.calibration = cal as Calibration;
    else warnings.push(`Unknown calibration "${cal}" in the link; using ${state.calibration}.`);
  }
  for (const [param, { key, schema }] of Object.entries(FIELDS)) {
    const raw = p.get(param);
    if (raw === null) continue;
    // Number('') is 0: a blank value is absent, not zero.
    if (isBlank(raw)) { warnings.push(blankWarning(param, state[key] === null ? (key === 'threshold' ? "the mode's default" : 'no limit') : String(state[key]))); continue; }
    const r = v.safeParse(schema, raw);
    if (r.success) (state as unknown as Record<string, number>)[key] = r.output;
    else warnings.push(`Ignored invalid ${param}="${raw}" in the link.`);
  }
  const all = p.getAll('party');
  const kept = all.filter((x) => x.length <= MAX_PARTY_CHARS);
  if (kept.length < all.length) warnings.push(`Ignored ${all.length - kept.length} party value(s) longer than ${MAX_PARTY_CHARS} characters in the link.`);
  const parties = uniqueList(kept, 'party');
  state.parties = parties.values;
  warnings.push(...parties.warnings);
  return { state, warnings };
}

/** Only non-default values are written, so links stay short. */
export function serializeUrlState(s: SearchUrlState): string {
  const p = new URLSearchParams();
  if (s.q) p.set('q', s.q.slice(0, MAX_QUERY_CHARS));
  if (s.mode !== DEFAULT_URL_STATE.mode) p.set('mode', s.mode);
  if (s.topK !== DEFAULT_URL_STATE.topK) p.set('k', String(s.topK));
  if (s.candidateK !== DEFAULT_URL_STATE.candidateK) p.set('ck', String(s.candidateK));
  if (s.calibration !== DEFAULT_URL_STATE.calibration) p.set('cal', s.calibration);
  if (s.threshold !== null) p.set('thr', String(s.threshold));
  if (s.yearMin !== null) p.set('ymin', String(s.yearMin));
  if (s.yearMax !== null) p.set('ymax', String(s.yearMax));
  for (const party of s.parties) p.append('party', party);
  const out = p.toString();
  return out ? `?${out}` : '';
}
