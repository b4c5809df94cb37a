/**
 * Unexpected answers from a Hub (or whatever a hubUrl points at): a 2xx API answer that is not JSON (a captive
 * portal's HTML, a proxy's text) becomes one line naming the host, the status, the content type and the first bytes
 * of what came back, instead of a SyntaxError deep inside @huggingface/hub ("unexpected error" on the CLI).
 */
import { hostOf } from './hub-reach.ts';
import type { Fetch } from './download.ts';

/** Thrown by {@link jsonApiFetch} for a 2xx API answer that is not JSON; its message is the whole line. */
export class UnexpectedAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnexpectedAnswerError';
  }
}

/** At most `max` characters of `text` for a one-line message: whitespace runs as one space, control characters dropped, tokens hidden. */
export function answerExcerpt(text: string, max = 60): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').replace(/\s+/g, ' ').trim()
    .replace(/hf_[A-Za-z0-9]+/g, 'hf_…');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The first bytes of a body (one chunk, at most a few seconds' wait), then the body is cancelled. */
async function firstBytes(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const chunk = await Promise.race([
      reader.read().then((r) => r.value ?? new Uint8Array()),
      new Promise<Uint8Array>((ok) => { timer = setTimeout(() => ok(new Uint8Array()), 5000); }),
    ]);
    return new TextDecoder('utf-8', { fatal: false }).decode(chunk.subarray(0, 240));
  } catch {
    return '';
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/** "host answered 200 with text/html, not JSON (first bytes: '<html>…')". */
export function notJsonLine(host: string, status: number, contentType: string | null, body: string): string {
  const excerpt = answerExcerpt(body);
  return `${host} answered ${status} with ${contentType ? answerExcerpt(contentType, 40) : 'no content type'}, not JSON (${excerpt ? `first bytes: '${excerpt}'` : 'an empty body'})`;
}

/**
 * `f` with a check on answers to `hubUrl`'s API (`/api/…`): a 2xx whose Content-Type is not JSON is refused with
 * an {@link UnexpectedAnswerError} before @huggingface/hub parses it. Other requests and answers pass unchanged.
 */
export function jsonApiFetch(f: Fetch, hubUrl: string): Fetch {
  const api = `${hubUrl.replace(/\/+$/, '')}/api/`;
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const res = await f(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(api) || !res.ok || res.status === 204 || init?.method === 'HEAD') return res;
    const type = res.headers.get('content-type');
    if (type && /json/i.test(type)) return res;
    throw new UnexpectedAnswerError(notJsonLine(hostOf(hubUrl), res.status, type, await firstBytes(res)));
  };
  return wrapped as Fetch;
}

/** The one line for a failure that is an unreadable answer (not JSON, or JSON that does not parse), else null. */
export function unexpectedAnswerLine(e: unknown, hubUrl: string): string | null {
  if (e instanceof UnexpectedAnswerError) return e.message;
  if (e instanceof SyntaxError) return `${hostOf(hubUrl)} answered with JSON that does not parse (${answerExcerpt(e.message, 100)})`;
  return null;
}
