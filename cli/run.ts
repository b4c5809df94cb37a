/**
 * One `rag-lab <command>` command line in this process: the commands, the usage, the dispatch, and each failure
 * as one stderr line and an exit code. cli/main.ts is the process around it (output guards, last-resort handlers).
 */
import { evalBeirCommand } from './eval-beir.ts';
import { CliError, nearest } from './args.ts';
import { fsErrorLine } from './fs-errors.ts';
import { redactSecrets } from '../src/lib/util/redact.ts';
import { CLI_SOURCES_TEXT } from '../src/lib/kb-build/build-sources.ts';

export const COMMANDS: Record<string, { run: (argv: string[]) => Promise<void>; help: string }> = {
  analyze: { run: (argv) => import('./analyze.ts').then((m) => m.analyzeCommand(argv)), help: 'Analyse a retrieval report: H1 (do query-difficulty predictors track NDCG@10?) and H2 (paired tests between modes)' },
  ask: { run: (argv) => import('./ask.ts').then((m) => m.askCommand(argv)), help: 'Answer a question from a knowledge base with an LLM' },
  'build-index': { run: (argv) => import('./build-index.ts').then((m) => m.buildIndexCommand(argv)), help: `Build a knowledge-base artifact (${CLI_SOURCES_TEXT}) and optionally push it to the Hub` },
  compare: { run: (argv) => import('./compare.ts').then((m) => m.compareCommand(argv)), help: 'Compare saved reports: Δ vs a baseline with paired tests, W/T/L, config differences' },
  'eval-beir': { run: evalBeirCommand, help: 'Evaluate retrieval modes on a BEIR folder or a built artifact' },
  'eval-ragbench': { run: (argv) => import('./eval-ragbench.ts').then((m) => m.evalRagbenchCommand(argv)), help: 'TRACe evaluators vs RAGBench gold labels and baselines' },
  search: { run: (argv) => import('./search.ts').then((m) => m.searchCommand(argv)), help: 'Top-k results of queries over a knowledge base (as the Search tab)' },
  testset: { run: (argv) => import('./testset.ts').then((m) => m.testsetCommand(argv)), help: 'Make a test set of a knowledge base (written by an LLM, pseudo-queries, or imported) as BEIR files for tune' },
  tune: { run: (argv) => import('./tune.ts').then((m) => m.tuneCommand(argv)), help: 'Tune retrieval settings on a test set: successive halving, a Pareto front, the winner on held-out queries' },
  'train-embedder': { run: (argv) => import('./train-embedder.ts').then((m) => m.trainEmbedderCommand(argv)), help: 'Train a corpus-trained embedding model (LSI) on a corpus\'s documents, as a model folder' },
};

export function usage(): string {
  return ['Usage: rag-lab <command> [options]', '', 'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(14)} ${c.help}`),
    '', 'Run `rag-lab <command> --help` for its options. "Seed A / B / C" in the help are the three design documents',
    'RAG Lab implements (A: the RAG explorer and its RAGBench evaluation; B: calibrated entropy-weighted hybrid retrieval',
    'on SciFact; C: the agentic research assistant): docs/seeds.md.'].join('\n');
}

/** What the stderr lines of a run start with: `rag-lab`, and the command when `name` is one. */
export function cliPrefix(name: string | undefined): string {
  return `rag-lab${name && name in COMMANDS ? ` ${name}` : ''}`;
}

/**
 * Writes the one stderr line for a failure (credentials in it redacted) and returns the exit code; a reader that
 * closed stdout (`| head -1`, EPIPE) ends the run quietly with 0.
 */
export function failure(e: unknown, prefix: string): number {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'EPIPE') return 0;
  if (e instanceof CliError) {
    process.stderr.write(`${prefix}: ${redactSecrets(e.message)}\n`);
    return e.exitCode;
  }
  const line = fsErrorLine(e);
  if (line) {
    process.stderr.write(`${prefix}: ${line}\n`);
    return 2;
  }
  process.stderr.write(`${prefix}: unexpected error: ${redactSecrets(err?.message ?? String(e))}${process.env.RAG_LAB_DEBUG ? `\n${err?.stack}` : ' (RAG_LAB_DEBUG=1 shows the stack)'}\n`);
  return 1;
}

/** hnswlib-wasm reports every file-system sync on console.log ("b. jsFS synced successfully"…): such a line belongs on stderr. */
export function isWasmFsLog(args: unknown[]): boolean {
  return typeof args[0] === 'string' && /^[a-z]\. .*(sync|FS|IDBFS)/i.test(args[0]);
}

/**
 * Runs one command line (the arguments after `rag-lab`). Returns the exit code to end the process with at once, or
 * null when the command finished: then the process ends on its own, with any process.exitCode the command set.
 */
export async function runCli(argv: string[]): Promise<number | null> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    const guess = nearest(name, Object.keys(COMMANDS));
    process.stderr.write(`rag-lab: unknown command "${name}"${guess ? ` (did you mean ${guess}?)` : ''}\n\n${usage()}\n`);
    return 2;
  }
  try {
    await command.run(rest);
    return null;
  } catch (e) {
    return failure(e, cliPrefix(name));
  }
}
