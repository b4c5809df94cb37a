/**
 * User settings kept in localStorage (never secrets): where models come from and which models to use.
 * Invalid stored values fall back to defaults field by field, with a warning naming them. Unknown fields (a `token`,
 * say) are dropped on read.
 */
import { HUB_HOST } from '../../lib/hub/endpoint.ts';
import * as v from 'valibot';
import { arxivProxyProblem } from '../../lib/data/arxiv-query.ts';
import { parseHubId } from '../../lib/data/kb-registry.ts';
import { DATASET_VIEWER } from '../../lib/data/ragbench.ts';
import { autoThreads } from '../../lib/models/runtime.ts';
import { DEFAULT_MODELS, defaultDtype } from '../../lib/models/registry.ts';
import { DTYPES } from '../../lib/models/types.ts';

/** Explicit per-knowledge-base embedder picks kept (`kbEmbedders`). */
export const MAX_KB_PICKS = 200;

const Spec = v.object({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  dtype: v.picklist(DTYPES),
  device: v.picklist(['wasm', 'webgpu']),
});

/**
 * A host URL that carries no credential: no `user:password@` and no query or fragment, so a stored setting cannot
 * attach a token to model or dataset requests (no key or token is ever sent to these hosts).
 */
const HostUrl = v.pipe(
  v.string(),
  v.url(),
  v.check((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without a user name, password, query or fragment (no key or token goes to this host)'),
);

export const SettingsSchema = v.object({
  /** Model host in Hub layout (`<host>/<owner>/<name>/resolve/<revision>/<file>`). */
  remoteHost: HostUrl,
  embedder: Spec,
  crossEncoder: Spec,
  /** NLI model for the Benchmark tab's local TRACe evaluator. */
  nli: Spec,
  /**
   * The Hub whose dataset repos hold index artifacts (knowledge bases). The user's hf_ token is sent only here, and a
   * link can never change it.
   */
  hubUrl: HostUrl,
  /**
   * A Hub dataset repo (`owner/name` or `owner/name@revision`) holding the embedded corpus's artifact with vectors
   * (scripts/sotu-artifact.ts --embedder): enabling dense search downloads them instead of embedding in the tab.
   * Empty: embed in the tab.
   */
  sotuVectors: v.pipe(v.string(), v.maxLength(300), v.check((s) => s === '' || parseHubId(`hub:${s}`).ok, 'must be empty or owner/name, optionally @revision')),
  /** Hugging Face dataset viewer (rows API) the Benchmark tab loads RAGBench from. */
  datasetsHost: HostUrl,
  /**
   * The proxy the Build tab calls arXiv through (arXiv sends no CORS headers): it replaces
   * https://export.arxiv.org/api/query, so requests go to `<proxy>?search_query=…`; web pages go to `<proxy>?url=…`
   * (`src/lib/data/web-fetch.ts`). Empty (the default): off.
   */
  arxivProxy: v.pipe(v.string(), v.maxLength(500), v.check((s) => s === '' || arxivProxyProblem(s) === null, 'must be empty (off) or an http(s) URL with no user name, password, query or fragment, and not arXiv itself')),
  /**
   * The embedder picked explicitly per knowledge base, by its corpus hash (models/kb-embedder.ts): a trained model's
   * id, 'pretrained' (the embedder above) or 'none' (BM25 only). At most 200; no pick: its own trained model, else
   * the embedder above.
   */
  kbEmbedders: v.pipe(v.record(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)), v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    v.check((r) => Object.keys(r).length <= MAX_KB_PICKS, `must hold at most ${MAX_KB_PICKS} picks`)),
  /** Load the models and embed the corpus when the app opens. */
  autoLoadModels: v.boolean(),
  /** CPU threads for WASM models: 'auto' (see autoThreads) or a count; more than 1 needs cross-origin isolation. */
  threads: v.union([v.literal('auto'), v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(16))]),
  /**
   * On hosts that send no COOP/COEP headers, add them from a service worker (coi-serviceworker, one reload) so
   * threads work. Read before the app starts by the inline script in index.html.
   */
  isolationShim: v.boolean(),
});

export type Settings = v.InferOutput<typeof SettingsSchema>;
export const SETTINGS_KEY = 'rag-lab:settings';

const defaults: Settings = {
  remoteHost: HUB_HOST,
  embedder: { id: DEFAULT_MODELS.embedder, dtype: defaultDtype('wasm'), device: 'wasm' },
  crossEncoder: { id: DEFAULT_MODELS['cross-encoder'], dtype: defaultDtype('wasm'), device: 'wasm' },
  nli: { id: DEFAULT_MODELS.nli, dtype: defaultDtype('wasm'), device: 'wasm' },
  hubUrl: HUB_HOST,
  sotuVectors: '',
  datasetsHost: DATASET_VIEWER,
  arxivProxy: '',
  kbEmbedders: {},
  autoLoadModels: false,
  threads: 'auto',
  isolationShim: true,
};
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze(defaults);

export function parseSettings(raw: string | null): { settings: Settings; warning: string | null } {
  const fresh = () => structuredClone(DEFAULT_SETTINGS) as Settings;
  if (raw === null) return { settings: fresh(), warning: null };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { settings: fresh(), warning: 'Saved settings were unreadable and were reset.' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { settings: fresh(), warning: 'Saved settings were not a settings object and were reset.' };
  }
  // Field by field: one bad value costs that value, not every other setting.
  const settings = fresh() as Record<string, unknown>;
  const reset: string[] = [];
  for (const [field, schema] of Object.entries(SettingsSchema.entries)) {
    if (!(field in json)) continue;
    const r = v.safeParse(schema, (json as Record<string, unknown>)[field]);
    if (r.success) settings[field] = r.output;
    else reset.push(`${field} (${r.issues[0]?.message})`);
  }
  return {
    settings: settings as Settings,
    warning: reset.length ? `Saved settings were invalid and were reset to their defaults: ${reset.join('; ')}. The other settings were kept.` : null,
  };
}

/**
 * First-visit model defaults for this browser's best device (env.ts `defaultDevice`: WebGPU on a GPU adapter, else
 * WASM) with its default dtype (fp32 on WebGPU, q8 on WASM). Stored settings are never changed by this.
 */
export function withDevice(settings: Settings, device: 'wasm' | 'webgpu'): Settings {
  const dtype = defaultDtype(device) as Settings['embedder']['dtype'];
  const spec = (s: Settings['embedder']) => ({ ...s, device, dtype });
  return { ...settings, embedder: spec(settings.embedder), crossEncoder: spec(settings.crossEncoder), nli: spec(settings.nli) };
}

/** The thread count a setting means on this page: 1 without cross-origin isolation (no WebAssembly threads). */
export function threadCount(setting: Settings['threads'], logicalCores: number, isolated: boolean): number {
  return setting === 'auto' ? autoThreads(logicalCores, isolated) : isolated ? setting : 1;
}

export function validateSettings(s: unknown): { ok: true; settings: Settings } | { ok: false; message: string } {
  const r = v.safeParse(SettingsSchema, s);
  return r.success ? { ok: true, settings: r.output } : { ok: false, message: `${v.getDotPath(r.issues[0]!) ?? 'settings'}: ${r.issues[0]!.message}` };
}

/** Settings with the pick for the knowledge base of corpus hash `hash` set (null: removed); the oldest go past the bound. */
export function withKbPick(settings: Settings, hash: string, pick: string | null): Settings {
  const rest = Object.entries(settings.kbEmbedders).filter(([h]) => h !== hash);
  const next = pick === null ? rest : [...rest, [hash, pick] as [string, string]];
  return { ...settings, kbEmbedders: Object.fromEntries(next.slice(-MAX_KB_PICKS)) };
}

/** Settings with no pick of the model ids `ids` left, and the embedder reset to the default if it is one of them. */
export function withoutModels(settings: Settings, ids: readonly string[]): Settings {
  const kbEmbedders = Object.fromEntries(Object.entries(settings.kbEmbedders).filter(([, id]) => !ids.includes(id)));
  const embedder = ids.includes(settings.embedder.id) ? { ...DEFAULT_SETTINGS.embedder } : settings.embedder;
  return { ...settings, kbEmbedders, embedder };
}

/** The vectors repo of the `sotuVectors` setting, or null (embed in the tab). */
export function sotuVectorsRepo(setting: string): { repo: string; revision: string } | null {
  const r = setting ? parseHubId(`hub:${setting}`) : null;
  return r?.ok ? { repo: r.ref.repo, revision: r.ref.revision } : null;
}

/** Shown under the arXiv proxy setting: the Build tab's web pages use the same proxy. */
export const WEB_PROXY_NOTE = 'The Build tab reads web pages through the same proxy, as <proxy>?url=<page URL>: it sees those URLs and pages too (docs/build.md, "From web pages").';

/** Shown next to the arXiv proxy setting. */
export const ARXIV_PROXY_WARNING = 'The proxy sees every arXiv query you make and the answers; use one you run or trust. No key or token is sent to it.';
