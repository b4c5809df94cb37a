/** Secrets redaction lives on the lowest floor (`../redact.ts`), so data readers and build flags mask URLs with it too. */
export * from '../util/redact.ts';
