/**
 * Where a secret may go. An API key (or `hf_` token) is bound to the provider and the endpoint origin (scheme, host,
 * port) it was entered for, the provider's default endpoint when none was given. A request may carry the key without
 * asking only to that origin (the user chose it: by entering the key for it, or by confirming it); any other origin
 * needs the user's confirmation, which re-binds the key to the new origin. A link can name an endpoint, but a key
 * goes there only if it is the key's own origin, so a page reloaded from its own URL does not ask again.
 *
 * Pure data and decisions (no storage, no UI): `src/ui/state/keys.svelte.ts` stores the bindings and asks.
 */
import * as v from 'valibot';
import { PROVIDER_IDS, PROVIDERS } from './registry.ts';
import type { ProviderId, RemoteProviderId } from './types.ts';

export interface KeyBinding {
  readonly provider: RemoteProviderId;
  /** `scheme://host[:port]` as `URL.origin` gives it (lower case, punycode, default port left out). */
  readonly origin: string;
}

export interface BoundKey {
  readonly key: string;
  readonly binding: KeyBinding;
}

export function isRemoteProvider(id: unknown): id is RemoteProviderId {
  return typeof id === 'string' && (PROVIDER_IDS as readonly string[]).includes(id);
}

/** The origin a request to `baseUrl` (the provider's default when null or blank) goes to; null when it is no http(s) URL. */
export function endpointOrigin(provider: RemoteProviderId, baseUrl: string | null | undefined): string | null {
  const raw = baseUrl?.trim() || PROVIDERS[provider].defaultBaseUrl;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
}

/** The binding of a key entered for `baseUrl` (null or blank: the provider's default endpoint); null for a bad URL. */
export function bindingFor(provider: RemoteProviderId, baseUrl: string | null | undefined): KeyBinding | null {
  const origin = endpointOrigin(provider, baseUrl);
  return origin === null ? null : { provider, origin };
}

/** The binding of a key entered with no endpoint, and of a stored key of the old shape (a bare string). */
export function defaultBinding(provider: RemoteProviderId): KeyBinding {
  return { provider, origin: endpointOrigin(provider, null)! };
}

/** Whether a key bound by `binding` may go to `provider` at `baseUrl` without asking (same provider, same origin). */
export function mayReceiveKey(binding: KeyBinding, provider: RemoteProviderId, baseUrl: string | null | undefined): boolean {
  return binding.provider === provider && binding.origin === endpointOrigin(provider, baseUrl);
}

/** What to show for an origin: its host (`api.groq.com`, `127.0.0.1:8080`), punycode as the URL parser writes it. */
export function hostOf(origin: string): string {
  try {
    return new URL(origin).host || origin;
  } catch {
    return origin;
  }
}

/** Two origins as shown side by side: hosts, or whole origins when only the scheme tells them apart. */
function shownPair(a: string, b: string): [string, string] {
  const ha = hostOf(a);
  const hb = hostOf(b);
  return ha === hb && a !== b ? [a, b] : [ha, hb];
}

export type KeySendDecision =
  | { action: 'send' }
  | {
    action: 'confirm';
    /** 'link': the endpoint came from a link; 'endpoint': the key was entered for another origin or provider. */
    reason: 'link' | 'endpoint';
    provider: RemoteProviderId;
    targetOrigin: string;
    boundHost: string;
    targetHost: string;
    /** The question to ask, e.g. "Your Groq key was entered for api.groq.com. Send it to evil.example?" */
    question: string;
    /** What to tell the user when they decline: nothing was sent, and why. */
    declined: string;
  }
  | { action: 'refuse'; message: string };

/**
 * Whether a key bound by `binding` may go with a request to `provider` at `baseUrl`. `fromLink`: the base URL came
 * from a link (URL state or a shared link) and the user has not confirmed it.
 */
export function decideKeySend(
  binding: KeyBinding,
  provider: RemoteProviderId,
  baseUrl: string | null | undefined,
  fromLink: boolean,
): KeySendDecision {
  const label = PROVIDERS[provider].label;
  const targetOrigin = endpointOrigin(provider, baseUrl);
  if (targetOrigin === null) {
    return { action: 'refuse', message: `The ${label} base URL is not an http(s) URL, so your key was not sent: correct the base URL.` };
  }
  const viaLink = fromLink && baseUrl != null && baseUrl.trim() !== '';
  if (mayReceiveKey(binding, provider, baseUrl)) return { action: 'send' };
  const [boundHost, targetHost] = shownPair(binding.origin, targetOrigin);
  const owner = binding.provider === provider ? `Your ${label} key` : `Your ${PROVIDERS[binding.provider].label} key`;
  const sameOrigin = binding.origin === targetOrigin;
  const question = viaLink
    ? `This base URL came from a link, not from you. ${sameOrigin ? `Send your ${label} key to ${targetHost}?` : `${owner} was entered for ${boundHost}. Send it to ${targetHost}?`}`
    : `${owner} was entered for ${boundHost}. Send it to ${targetHost}?`;
  const declined = `Not sent: your ${label} key was not sent to ${targetHost}${sameOrigin ? '' : ` (it was entered for ${boundHost})`}, and no request was made. ` +
    `Confirm with Send to use ${targetHost}, or change the base URL.`;
  return { action: 'confirm', reason: viaLink ? 'link' : 'endpoint', provider, targetOrigin, boundHost, targetHost, question, declined };
}

// ------------------------------------------------------------------------------------------------ stored records

/** What the key store keeps per provider: the key and where it may go. */
export interface StoredKeyRecord {
  key: string;
  provider: RemoteProviderId;
  origin: string;
}

const KeyText = v.pipe(v.string(), v.minLength(1), v.maxLength(4096), v.regex(/^[\x21-\x7e]+$/));
const OriginText = v.pipe(
  v.string(),
  v.check((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === s;
    } catch {
      return false;
    }
  }),
);
const RecordSchema = v.strictObject({ key: KeyText, provider: v.picklist(PROVIDER_IDS as RemoteProviderId[]), origin: OriginText });

export function toStoredRecord(k: BoundKey): StoredKeyRecord {
  return { key: k.key, provider: k.binding.provider, origin: k.binding.origin };
}

export type StoredKeyParse = { ok: true; value: BoundKey; legacy: boolean } | { ok: false; message: string };

/**
 * Reads one stored record under the store key `id`: `{ key, provider, origin }`, or a bare string (the old shape),
 * which stays usable for the provider's default endpoint only. Anything else is refused with a message that names
 * the provider and never shows the record.
 */
export function parseStoredKey(id: unknown, raw: unknown): StoredKeyParse {
  if (!isRemoteProvider(id)) return { ok: false, message: 'A saved key under an unknown name was ignored and removed.' };
  const unreadable = { ok: false as const, message: `The saved ${PROVIDERS[id].label} key was not readable and was removed; enter it again.` };
  if (typeof raw === 'string') {
    return v.is(KeyText, raw) ? { ok: true, value: { key: raw, binding: defaultBinding(id) }, legacy: true } : unreadable;
  }
  const r = v.safeParse(RecordSchema, raw);
  if (!r.success || r.output.provider !== id) return unreadable;
  return { ok: true, value: { key: r.output.key, binding: { provider: id, origin: r.output.origin } }, legacy: false };
}

/** The key's provider when the id names one that takes keys (the in-browser model takes none). */
export function keyProvider(id: ProviderId): RemoteProviderId | null {
  return isRemoteProvider(id) ? id : null;
}
