/**
 * A schema's settings in a link: each setting with a `url` parameter is read from it (blank: absent; invalid: the
 * value before, with a warning) and written to it when it differs from its default, so links stay short.
 */
import { blankWarning, isBlank, quote } from '../link-params.ts';
import { valueFromText, valueText, type SettingsOf, type SettingsSchema } from './schema.ts';

export interface UrlCodec<S extends SettingsSchema> {
  /** The parameters the schema's settings use, in the schema's order. */
  params: readonly string[];
  /** Reads the parameters present into `into` (in place); each value not used is named in `warnings`. */
  parse(p: URLSearchParams, into: SettingsOf<S>, warnings: string[]): void;
  /** Writes each setting that differs from its default into `p`. */
  serialize(values: SettingsOf<S>, p: URLSearchParams): void;
}

export function urlCodec<S extends SettingsSchema>(schema: S): UrlCodec<S> {
  const entries = Object.entries(schema).filter(([, s]) => s.url !== undefined);
  // Choices first, then the rest: the order a link's warnings have always come in.
  const parseOrder = [...entries.filter(([, s]) => s.type === 'enum'), ...entries.filter(([, s]) => s.type !== 'enum')];
  return {
    params: entries.map(([, s]) => s.url!),
    parse(p, into, warnings) {
      const values = into as Record<string, unknown>;
      for (const [key, s] of parseOrder) {
        const raw = p.get(s.url!);
        if (raw === null) continue;
        const now = values[key];
        // Number('') is 0: a blank value is absent, not zero.
        if (isBlank(raw)) { warnings.push(blankWarning(s.url!, now === null ? s.nullMeans ?? 'the default' : String(now))); continue; }
        const x = valueFromText(s, raw);
        if (x !== undefined) values[key] = x;
        else if (s.type === 'enum') warnings.push(`Unknown ${s.label ?? key} ${quote(raw)} in the link; using ${String(now)}.`);
        else warnings.push(`Ignored invalid ${s.url}=${quote(raw)} in the link.`);
      }
    },
    serialize(values, p) {
      for (const [key, s] of entries) {
        const x = values[key as keyof S];
        if (x !== s.default && x !== null) p.set(s.url!, valueText(x));
      }
    },
  };
}
