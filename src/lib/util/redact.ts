/**
 * Keeping API keys out of every string that leaves an adapter: error messages, log lines, serialised configs.
 *
 * `redactSecrets` replaces each given key (and its URL-encoded and Base64 forms) with `[redacted]`, and, as a second
 * line of defence, anything shaped like a well-known API key (`sk-…`, `sk-ant-…`, `gsk_…`, `hf_…`) or a bearer
 * credential, so a key the caller forgot to pass is still caught when it has a recognisable shape. URLs lose their
 * credentials too: the userinfo (`https://user:password@host`) and the value of any query or fragment parameter whose
 * name says key, token, secret, password, auth or signature (`?api_key=…`, `#access_token=…`).
 *
 * It sits on the lowest floor of src/lib so that every message that echoes a URL uses it: `ask --base-url`, the build
 * flags (`--search-endpoint`, `--arxiv-endpoint`), the URL list's problems (the Build tab's problem line, `--urls`),
 * the pages a build skipped, and the CLI's error and progress lines (`cli/run.ts`, `cli/kb-arg.ts` stderrOutput).
 */

export const REDACTED = '[redacted]';

/** Known key shapes: OpenAI / Anthropic (`sk-`, `sk-ant-`, `sk-proj-`), Groq (`gsk_`), Hugging Face (`hf_`). */
const KEY_SHAPES = /\b(?:sk-ant-[A-Za-z0-9_-]{8,}|sk-[A-Za-z0-9_-]{16,}|gsk_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{16,})/g;
/** A credential after an auth scheme: `Bearer abc…`, `Basic abc…`. */
const AFTER_SCHEME = /\b(Bearer|Basic)(\s+)(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/g;
/** A credential after a header or field name: `x-api-key: abc…`, `"api_key": "abc…"`, `access_token=abc…`. */
const AFTER_NAME =
  /\b(x-api-key|api[-_]?key|access[-_]?token|authorization)(["']?\s*[:=]\s*["']?(?:Bearer\s+)?)(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/gi;

/**
 * Userinfo of a URL: `https://user:pw@host`, also the forms URL parsers accept without slashes or with backslashes
 * (`https:user:pw@host`, `https:\\\\user@host`). Greedy up to the last '@' of the authority, as the URL parser reads it.
 */
const URL_USERINFO = /\b((?:https?|wss?|ftp):[\\/]*)[^\s/\\?#]*@/gi;
/** `name=value` in a query string or fragment when the name says it holds a credential. */
const QUERY_SECRET = /([?&#;][^=&#\s]*(?:key|token|secret|passw(?:or)?d|pwd|auth|sig|credential)[^=&#\s]*=)[^&#\s]+/gi;

function variants(key: string): string[] {
  const out = new Set<string>([key]);
  try {
    out.add(encodeURIComponent(key));
  } catch {
    /* lone surrogate: keep the raw form only */
  }
  try {
    // A key can end up Base64-encoded in a Basic auth header that a server echoes back.
    if (/^[\x20-\x7e]*$/.test(key)) out.add(btoa(key));
  } catch {
    /* not Latin-1 */
  }
  return [...out].filter((v) => v.length > 0);
}

/**
 * Returns `text` with every occurrence of every non-empty key in `keys` replaced by `[redacted]`, plus anything that
 * looks like an API key or a bearer credential. Longer keys are replaced first, so a key that contains another is
 * removed whole. Empty, blank, null and undefined keys are ignored.
 */
export function redactSecrets(text: string, keys: readonly (string | null | undefined)[] = []): string {
  let out = String(text);
  const all = keys
    .filter((k): k is string => typeof k === 'string' && k.trim().length > 0)
    .flatMap((k) => (k.trim() === k ? variants(k) : [...variants(k), ...variants(k.trim())]))
    .sort((a, b) => b.length - a.length);
  for (const secret of all) out = out.split(secret).join(REDACTED);
  out = out.replace(URL_USERINFO, `$1${REDACTED}@`).replace(QUERY_SECRET, `$1${REDACTED}`);
  out = out.replace(KEY_SHAPES, REDACTED);
  const keep = (_m: string, name: string, sep: string) => `${name}${sep}${REDACTED}`;
  out = out.replace(AFTER_SCHEME, keep).replace(AFTER_NAME, keep);
  return out;
}

/**
 * A URL, or what was meant to be one, as it may be shown in a message: credentials redacted (see `redactSecrets`)
 * and at most `max` characters, cut after redacting so a clipped key cannot slip through half-shown.
 */
export function redactUrlForDisplay(raw: string, keys: readonly (string | null | undefined)[] = [], max = 80): string {
  const out = redactSecrets(raw, keys);
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** Deep copy of a JSON-like value with every string passed through `redactSecrets` and every `apiKey` field removed. */
export function redactValue<T>(value: T, keys: readonly (string | null | undefined)[] = []): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactSecrets(v, keys);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (/^(api[-_]?key|authorization|x-api-key|token|secret)$/i.test(k)) continue;
        o[k] = walk(x);
      }
      return o;
    }
    return v;
  };
  return walk(value) as T;
}
