/** `rag-lab <command>`: the command-line shell over src/lib. */
import { evalBeirCommand } from './eval-beir.ts';
import { CliError, nearest } from './args.ts';
import { fsErrorLine } from './fs-errors.ts';
import { guardOutput } from './terminal.ts';

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<void>; help: string }> = {
  analyze: { run: (argv) => import('./analyze.ts').then((m) => m.analyzeCommand(argv)), help: 'Analyse a retrieval report: H1 (do query-difficulty predictors track NDCG@10?) and H2 (paired tests between modes)' },
  ask: { run: (argv) => import('./ask.ts').then((m) => m.askCommand(argv)), help: 'Answer a question from a knowledge base with an LLM' },
  'build-index': { run: (argv) => import('./build-index.ts').then((m) => m.buildIndexCommand(argv)), help: 'Build a knowledge-base artifact (BEIR, RAGBench, a folder of PDF/TXT/MD/HTML files, arXiv) and optionally push it to the Hub' },
  compare: { run: (argv) => import('./compare.ts').then((m) => m.compareCommand(argv)), help: 'Compare saved reports: Δ vs a baseline with paired tests, W/T/L, config differences' },
  'eval-beir': { run: evalBeirCommand, help: 'Evaluate retrieval modes on a BEIR folder or a built artifact' },
  'eval-ragbench': { run: (argv) => import('./eval-ragbench.ts').then((m) => m.evalRagbenchCommand(argv)), help: 'TRACe evaluators vs RAGBench gold labels and baselines' },
  search: { run: (argv) => import('./search.ts').then((m) => m.searchCommand(argv)), help: 'Top-k results of queries over a knowledge base (as the Search tab)' },
  'train-embedder': { run: (argv) => import('./train-embedder.ts').then((m) => m.trainEmbedderCommand(argv)), help: 'Train a corpus-trained embedding model (LSI) on a corpus\'s documents, as a model folder' },
};

function usage(): string {
  return ['Usage: rag-lab <command> [options]', '', 'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(14)} ${c.help}`),
    '', 'Run `rag-lab <command> --help` for its options. "Seed A / B / C" in the help are the three design documents',
    'RAG Lab implements (A: the RAG explorer and its RAGBench evaluation; B: calibrated entropy-weighted hybrid retrieval',
    'on SciFact; C: the agentic research assistant): docs/seeds.md.'].join('\n');
}

const [name, ...rest] = process.argv.slice(2);
const prefix = `rag-lab${name && name in COMMANDS ? ` ${name}` : ''}`;

/** One line on stderr and the exit code; a reader that closed stdout (`| head -1`) ends the run quietly. */
function fail(e: unknown): never {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'EPIPE') process.exit(0);
  if (e instanceof CliError) {
    process.stderr.write(`${prefix}: ${e.message}\n`);
    process.exit(e.exitCode);
  }
  const line = fsErrorLine(e);
  if (line) {
    process.stderr.write(`${prefix}: ${line}\n`);
    process.exit(2);
  }
  process.stderr.write(`${prefix}: unexpected error: ${err?.message ?? String(e)}${process.env.RAG_LAB_DEBUG ? `\n${err?.stack}` : ' (RAG_LAB_DEBUG=1 shows the stack)'}\n`);
  process.exit(1);
}

guardOutput(process.stdout, (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  process.stderr.write(`${prefix}: ${fsErrorLine(e, 'stdout') ?? `stdout: ${e.message}`}\n`);
  process.exit(2);
});
// Nowhere left to report a fault of stderr itself.
guardOutput(process.stderr, () => process.exit(process.exitCode === undefined ? 2 : Number(process.exitCode)));
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

// hnswlib-wasm reports every file-system sync on console.log ("b. jsFS synced successfully"…): keep stdout for results.
const log = console.log.bind(console);
console.log = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && /^[a-z]\. .*(sync|FS|IDBFS)/i.test(args[0])) console.error(...args);
  else log(...args);
};

if (!name || name === '--help' || name === '-h') {
  console.log(usage());
  process.exit(name ? 0 : 2);
}
const command = COMMANDS[name];
if (!command) {
  const guess = nearest(name, Object.keys(COMMANDS));
  process.stderr.write(`rag-lab: unknown command "${name}"${guess ? ` (did you mean ${guess}?)` : ''}\n\n${usage()}\n`);
  process.exit(2);
}
try {
  await command.run(rest);
} catch (e) {
  fail(e);
}
