/** `rag-lab ask`: answers a question from a knowledge base with the RAG pipeline and an LLM provider. */
import { PROVIDER_IDS } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { answerQuestion } from '../src/lib/rag/answer.ts';
import { answerJson } from '../src/lib/rag/answer-json.ts';
import { malformedEventsNote } from '../src/lib/rag/stream-end.ts';
import { MemoryTransformCache } from '../src/lib/rag/transforms.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import { ApiSetupError, apiSetup } from '../src/lib/eval/core/api-setup.ts';
import { pipelineModelNeeds } from '../src/lib/eval/core/pipeline-settings.ts';
import { searchOfRunConfig } from '../src/lib/settings/run-config-file.ts';
import { CliError, parse } from './args.ts';
import { readRunConfig } from './eval-beir.ts';
import { attachKbDense, KB_ARGS, KB_HELP, modelArgsFor, openKb } from './kb-arg.ts';
import { pipelineConfig, RAG_FLAG_ARGS, RAG_FLAG_HELP } from './rag-flags.ts';
import { loadCliModels, MODEL_ARGS, MODEL_HELP } from './models.ts';

const HELP = `Usage: rag-lab ask [--kb KB] --provider ${PROVIDER_IDS.join('|')} --model NAME [options] "question"

${KB_HELP}
  --provider ID      LLM provider
  --base-url URL     endpoint (default: the provider's; e.g. http://localhost:11434/v1 for Ollama)
  --model NAME       model name at the provider
  --api-key KEY      API key (or set RAG_LAB_API_KEY; prefer the variable: command lines end up in shell history)
  --mode MODE        retrieval mode (default sparse): ${MODE_IDS.join(', ')}
  --config FILE      a tune's winner (rag-lab tune --config-out): its mode and search settings; a flag given wins
${RAG_FLAG_HELP}
  --json             print one JSON object on the last line of stdout
${MODEL_HELP}
`;

export async function askCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    ...KB_ARGS, kb: { type: 'string', default: 'sotu' }, provider: { type: 'string' }, 'base-url': { type: 'string' }, model: { type: 'string' },
    'api-key': { type: 'string' }, mode: { type: 'string' }, config: { type: 'string' }, ...RAG_FLAG_ARGS,
    json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    ...MODEL_ARGS,
  }, true);
  if (values.help) { console.log(HELP); return; }
  const question = positionals.join(' ').trim();
  if (!question) throw new CliError(`a question is required\n\n${HELP}`);
  if (!values.provider) throw new CliError(`--provider is required (${PROVIDER_IDS.join(', ')})`);
  if (!values.model) throw new CliError('--model is required');
  const apiKey = values['api-key'] ?? process.env.RAG_LAB_API_KEY ?? undefined;
  const log = (m: string) => process.stderr.write(`${m}\n`);

  const config = pipelineConfig(values, { flag: 'mode', value: values.mode }, values.config ? searchOfRunConfig(readRunConfig(values.config)) : {});
  let provider;
  try {
    // The provider the flag names (an unknown one is refused here), with the config's endpoint and model.
    ({ provider } = apiSetup({ provider: values.provider, baseUrl: config.llm.baseUrl, model: config.llm.model, apiKey }));
  } catch (e) {
    throw e instanceof ApiSetupError ? new CliError(e.message) : e;
  }

  const need = pipelineModelNeeds(config);
  const opened = await openKb(values, { log, allowBeir: true, dense: need.dense ? 'auto' : 'none' });
  const kb = opened.kb;
  const models = await loadCliModels(modelArgsFor(values, opened, argv), need, log);
  await attachKbDense(opened, models, {}, log);

  const streamOut = !values.json;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const result = await answerQuestion(kb, question, config, {
    provider, models: models.search, cache: new MemoryTransformCache(), signal: controller.signal,
    onEvent: (e) => {
      if (!streamOut) return;
      if (e.type === 'delta') process.stdout.write(e.delta);
      else if (e.type === 'generation-start' && e.round > 0) process.stdout.write('\n\n[second round]\n');
    },
  });
  if (values.json) {
    console.log(JSON.stringify(answerJson(result, (t) => redactSecrets(t, [apiKey]))));
  } else {
    // Why an answered reply is partial (the token limit, the length cut) is said here; errors say it below.
    if (result.partial) process.stdout.write(`\n[answer cut off${result.status === 'answered' && result.reason ? `: ${result.reason}` : ''}]\n`);
    // A server cut or provider error goes to stderr (and exits 1, below); a stop or refusal is the answer itself.
    if (result.status !== 'answered') (result.status === 'error' ? process.stderr : process.stdout).write(`${redactSecrets(result.reason ?? result.status, [apiKey])}\n`);
    else if (!result.partial) process.stdout.write('\n');
    process.stdout.write('\nSources:\n');
    for (const c of result.contexts) process.stdout.write(`  [${c.n}] ${c.title} (${c.chunk_id}, score ${c.score.toFixed(3)})\n`);
    if (result.invalidCitations.length) process.stdout.write(`Citations pointing at no source: ${result.invalidCitations.map((n) => `[${n}]`).join(', ')}\n`);
  }
  if (result.malformedEvents) log(malformedEventsNote(result.malformedEvents));
  if (result.status === 'error') process.exitCode = 1;
}
