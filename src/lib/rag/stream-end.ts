/** The words for how an answer stream ended, shared by the pipeline, the Ask tab and the CLI. */
import type { StreamEnd } from '../llm/types.ts';

/** The note for stream events that could not be read and were skipped. */
export function malformedEventsNote(n: number): string {
  return `${n} unreadable stream event${n === 1 ? ' was' : 's were'} skipped (not JSON objects); the answer is made of the rest.`;
}

/** Why an answer stream ended early, for a provider that gave no words of its own. */
export const STREAM_ENDED: Record<Exclude<StreamEnd, 'complete' | 'signal'>, string> = {
  connection: 'The server closed the stream before the answer was complete. The text received so far is kept; ask again for the rest.',
  timeout: 'The provider stopped sending before the answer was complete. The text received so far is kept.',
  error: 'The provider reported an error before the answer was complete. The text received so far is kept.',
};
