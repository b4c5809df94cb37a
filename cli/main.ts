/**
 * `rag-lab <command>`: the process around cli/run.ts. It guards stdout and stderr, turns an error nothing caught
 * into the same stderr line and exit code, and keeps hnswlib-wasm's file-system chatter off stdout.
 */
import { fsErrorLine } from './fs-errors.ts';
import { guardOutput } from './terminal.ts';
import { cliPrefix, failure, isWasmFsLog, runCli } from './run.ts';

const argv = process.argv.slice(2);
const prefix = cliPrefix(argv[0]);

/** One line on stderr and the exit code; a reader that closed stdout (`| head -1`) ends the run quietly. */
function fail(e: unknown): never {
  process.exit(failure(e, prefix));
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

const log = console.log.bind(console);
console.log = (...args: unknown[]) => {
  if (isWasmFsLog(args)) console.error(...args);
  else log(...args);
};

const code = await runCli(argv);
if (code !== null) process.exit(code);
