/**
 * A retrieval run's modes and settings from `rag-lab eval-beir`'s flags (as strings and booleans, by flag name): the
 * protocol's preset, then each flag given. The flags, their help and their ranges come from RUN_SETTINGS
 * (settings/retrieval-run.ts). A bad value is a `RunSettingsError` naming the flag.
 */
import { QPP_DEFAULTS } from '../analysis/qpp.ts';
import { isMode, MODE_IDS, type RetrievalMode } from '../../retrieval/modes.ts';
import { flagHelp, flagOptions, readFlags } from '../../settings/cli-flags.ts';
import { protocolDescription, RunSettingsError, type RetrievalRunSettings } from './retrieval-session.ts';
import { RUN_DEFAULTS, RUN_SETTINGS, type RunFlat } from '../../settings/retrieval-run.ts';
import { runFromGiven } from './run-settings-map.ts';

export type RunFlags = Record<string, string | boolean | undefined>;

/** The parseArgs options of the run's settings flags. */
export const RUN_FLAG_OPTIONS = flagOptions(RUN_SETTINGS);

/** `--modes`: a comma-separated list, or "all". */
export function modesFlag(value: string): RetrievalMode[] {
  const modes = value === 'all' ? [...MODE_IDS] : value.split(',').map((m) => m.trim()).filter(Boolean).map((m) => {
    if (!isMode(m)) throw new RunSettingsError(`unknown mode "${m}" (choose from ${MODE_IDS.join(', ')}, or all)`);
    return m;
  });
  if (modes.length === 0) throw new RunSettingsError(`--modes is empty (choose from ${MODE_IDS.join(', ')}, or all)`);
  return modes;
}

/** The run's settings from the flags: the protocol's preset, then `base` (a settings file's), then each flag given. */
export function settingsFromFlags(v: RunFlags, base: Partial<RunFlat> = {}): RetrievalRunSettings {
  return runFromGiven({ ...base, ...readFlags(RUN_SETTINGS, v, (m) => new RunSettingsError(m)) });
}

/** `text` in lines of at most `width` characters, the lines after the first indented by `indent`. */
const wrap = (text: string, width: number, indent: string) =>
  text.split(' ').reduce<string[]>((lines, w) => {
    if (lines.length && (lines.at(-1)! + ' ' + w).length <= width) lines[lines.length - 1] += ' ' + w;
    else lines.push(w);
    return lines;
  }, []).join(`\n${indent}`);
const PAD = ' '.repeat(21);

/** `rag-lab eval-beir`'s help for the run's settings flags: one line per setting (defaults: the default protocol's). */
export const RUN_FLAGS_HELP = `${flagHelp(RUN_SETTINGS, RUN_DEFAULTS)}
${PAD}${wrap(`seed-b, the evaluation protocol of seed B (the calibrated entropy-weighted hybrid retrieval study; docs/seeds.md): ${protocolDescription('seed-b')}; each flag overrides its part. The chunking, --k1, --b and --analyzer apply to --data (an artifact keeps the settings it was built with); the predictors are computed per query on lists of ${QPP_DEFAULTS.listDepth}.`, 96, PAD)}`;
