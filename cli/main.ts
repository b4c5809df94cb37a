/** `rag-lab <command>`: the command-line shell over src/lib. */
import { evalBeirCommand } from './eval-beir.ts';
import { CliError } from './args.ts';

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<void>; help: string }> = {
  ask: { run: (argv) => import('./ask.ts').then((m) => m.askCommand(argv)), help: 'Answer a question from a knowledge base with an LLM' },
  'eval-beir': { run: evalBeirCommand, help: 'Evaluate retrieval modes on a BEIR dataset folder' },
  'eval-ragbench': { run: (argv) => import('./eval-ragbench.ts').then((m) => m.evalRagbenchCommand(argv)), help: 'TRACe evaluators vs RAGBench gold labels and baselines' },
};

function usage(): string {
  return ['Usage: rag-lab <command> [options]', '', 'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)} ${c.help}`),
    '', 'Run `rag-lab <command> --help` for its options.'].join('\n');
}

// hnswlib-wasm reports every file-system sync on console.log ("b. jsFS synced successfully"…): keep stdout for results.
const log = console.log.bind(console);
console.log = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && /^[a-z]\. .*(sync|FS|IDBFS)/i.test(args[0])) console.error(...args);
  else log(...args);
};

const [name, ...rest] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h') {
  console.log(usage());
  process.exit(name ? 0 : 2);
}
const command = COMMANDS[name];
if (!command) {
  console.error(`rag-lab: unknown command "${name}"\n\n${usage()}`);
  process.exit(2);
}
try {
  await command.run(rest);
} catch (e) {
  if (e instanceof CliError) {
    console.error(`rag-lab ${name}: ${e.message}`);
    process.exit(e.exitCode);
  }
  throw e;
}
