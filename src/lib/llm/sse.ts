/**
 * Server-sent events (the WHATWG event-stream format), as used by OpenAI-style `data:` streams (ending with
 * `data: [DONE]`) and by Anthropic's named events (`event: content_block_delta` + `data: {...}`).
 *
 * `SseParser` is incremental: feed it text as it arrives and it returns the events completed so far (lines may end
 * in LF, CRLF or CR, and a chunk may end anywhere, even between CR and LF). `readSse` drives it from a byte stream.
 */

export interface SseEvent {
  /** The `event:` field, or null (the default "message" type). */
  event: string | null;
  /** The `data:` lines joined with '\n'. */
  data: string;
  id: string | null;
}

export class SseParser {
  #buf = '';
  #data: string[] = [];
  #event: string | null = null;
  #id: string | null = null;
  #sawField = false;
  #first = true;
  /** A chunk ended with CR: an LF at the start of the next chunk belongs to it. */
  #pendingCR = false;

  /** Feeds text; returns the events it completed. */
  push(text: string): SseEvent[] {
    if (this.#first && text.length > 0) {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCR = false;
    this.#buf += text;
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.#buf.length; i++) {
      const c = this.#buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.#buf.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.#buf.length) {
          if (this.#buf.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#pendingCR = true;
        }
      }
      start = i + 1;
      const ev = this.#line(line);
      if (ev) out.push(ev);
    }
    this.#buf = this.#buf.slice(start);
    return out;
  }

  /** End of stream: an event without its closing blank line is dropped, as the spec says. */
  end(): SseEvent[] {
    this.#buf = '';
    this.#data = [];
    this.#event = null;
    this.#sawField = false;
    return [];
  }

  #line(line: string): SseEvent | null {
    if (line === '') {
      if (!this.#sawField) return null;
      const ev: SseEvent = { event: this.#event, data: this.#data.join('\n'), id: this.#id };
      this.#data = [];
      this.#event = null;
      this.#sawField = false;
      return ev;
    }
    if (line.startsWith(':')) return null; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#data.push(value);
        this.#sawField = true;
        break;
      case 'event':
        this.#event = value;
        this.#sawField = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      default:
        break; // 'retry' and unknown fields are ignored
    }
    return null;
  }
}

/**
 * Yields the events of an event-stream body. `onBytes` is called for every chunk read (used to restart an idle
 * timeout). Errors from the underlying stream (connection cut, abort) propagate to the caller.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onBytes?: () => void,
): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      onBytes?.();
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    parser.end();
  } finally {
    // Stopped early (the consumer broke out or threw): cancel the body so the connection is released.
    if (!finished) await reader.cancel().catch(() => undefined);
    try {
      reader.releaseLock();
    } catch {
      /* a pending read keeps the lock on some runtimes */
    }
  }
}
