/**
 * Model load failures, turned into one error type that names the model, the file (when known) and what to do.
 *
 * What transformers.js 4.3.2 throws (measured against a local Hub-like server, Node 20 + undici fetch):
 * - unknown model id:        ModelFileNotFoundError (status 404) 'Could not locate file: "<host>/<id>/resolve/main/config.json".'
 * - missing file:            the same, naming that file (e.g. onnx/model_quantized.onnx for a dtype the repo lacks)
 * - private/gated repo:      ModelFileNotFoundError with status 401/403 (the Hub answers 401 for missing repos too)
 * - other HTTP status:       Error 'Internal server error error occurred while trying to load file: "<url>".'
 * - unreachable host:        TypeError 'fetch failed' with cause.code ECONNREFUSED / ENOTFOUND (browsers: 'Failed to
 *                            fetch', 'NetworkError when attempting to fetch resource.', 'Load failed')
 * - connection cut mid-file: TypeError 'terminated' with cause.code UND_ERR_SOCKET
 * - truncated/corrupt ONNX:  Error 'Load model from <cache path>/<id>/onnx/model.onnx failed:Protobuf parsing failed.'
 *                            (onnxruntime-node); onnxruntime-web: "Can't create a session. ... protobuf parsing failed."
 * - corrupt JSON:            SyntaxError from JSON.parse, no file name
 * - invalid id:              ModelFileNotFoundError '... download aborted due to invalid model ID "<id>".'
 * - no tokenizer_config.json: TypeError "Cannot read properties of undefined (reading 'tokenizer_class')"
 * - device not available:    Error 'Unsupported device: "wasm". Should be one of: cuda, webgpu, cpu.'
 * - remote disabled, missing local file: ModelFileNotFoundError '`local_files_only=true` or `env.allowRemoteModels=false`
 *                            and file was not found locally at "<path>".'
 */

export type ModelLoadErrorKind =
  /** The model id or a file in it does not exist (HTTP 404, or 401/403 for private, gated or missing repos). */
  | 'not-found'
  /** The model id is not a valid Hub id. */
  | 'invalid-id'
  /** The model host could not be reached, or the connection broke during a download. */
  | 'unreachable'
  /** The host answered with another HTTP error (5xx, 429…). */
  | 'http'
  /** A downloaded file is truncated or not what it should be (ONNX protobuf or JSON parse failure). */
  | 'corrupt'
  /** The requested device or dtype is not available in this runtime. */
  | 'unsupported'
  /** The model loaded but is not usable for the task (e.g. an NLI model without entailment labels). */
  | 'incompatible'
  /** Remote downloads are disabled and the file is not in the local model folder. */
  | 'offline'
  /**
   * Browser/worker only: an earlier model failed while its ONNX session was being created, and transformers.js 4.3
   * then rejects every later session in the same JS context with that same error. Only a new context helps (reload
   * the page, or terminate and recreate the worker).
   */
  | 'restart-required'
  | 'unknown';

export interface ModelLoadErrorInit {
  modelId: string;
  kind: ModelLoadErrorKind;
  /** Path inside the model repo (`onnx/model.onnx`), when known. */
  file?: string | undefined;
  /** HTTP status, when the failure was an HTTP answer. */
  status?: number | undefined;
  /** The URL that failed, when known. */
  url?: string | undefined;
  /** No later model can load in this JS context (see 'restart-required'). */
  restartRequired?: boolean;
  cause?: unknown;
}

export class ModelLoadError extends Error {
  override readonly name = 'ModelLoadError';
  readonly modelId: string;
  readonly kind: ModelLoadErrorKind;
  readonly file: string | undefined;
  readonly status: number | undefined;
  readonly url: string | undefined;
  /** True when no later model can load in this JS context: reload the page or recreate the worker. */
  readonly restartRequired: boolean;

  constructor(message: string, init: ModelLoadErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.modelId = init.modelId;
    this.kind = init.kind;
    this.file = init.file;
    this.status = init.status;
    this.url = init.url;
    this.restartRequired = init.restartRequired ?? init.kind === 'restart-required';
  }
}

export interface ErrorContext {
  /** Files that were being fetched when the error happened (from progress events), first started first. */
  inFlight?: readonly string[];
  /** Files fully received, in the order they finished (a parse error is about the last of them). */
  done?: readonly string[];
  /** The configured model host, for messages about unreachable hosts. */
  remoteHost?: string;
  /** True in browsers and workers: a failed ONNX session there blocks later session loads until a reload. */
  web?: boolean;
  /**
   * True when this exact error object was already thrown by an earlier, finished load (web): transformers.js is
   * replaying a past session failure, not reporting a problem with this model.
   */
  replayed?: boolean;
}

/** Messages of failures inside ONNX Runtime session creation (Node and Web). */
const SESSION_FAILURE = /can't create a session|protobuf parsing failed|failed to load model|no available backend|ERROR_CODE: \d+/i;

const NETWORK_MESSAGES = [
  /fetch failed/i, // undici (Node)
  /failed to fetch/i, // Chromium
  /networkerror/i, // Firefox
  /^load failed$/i, // Safari
  /^terminated$/i, // undici: connection closed mid-body
  /network (connection was lost|error)/i,
  /ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR/,
];

/** transformers.js's ERROR_MAPPING (utils/hub/constants.js): the message it throws per HTTP status. */
const STATUS_TEXTS: readonly [number, RegExp][] = [
  [400, /^Bad request error occurred/],
  [401, /^Unauthorized access to file/],
  [403, /^Forbidden access to file/],
  [404, /^Could not locate file/],
  [408, /^Request timeout error occurred/],
  [500, /^Internal server error error occurred/],
  [502, /^Bad gateway error occurred/],
  [503, /^Service unavailable error occurred/],
  [504, /^Gateway timeout error occurred/],
];

function errorText(e: unknown): { name: string; message: string; causeCode: string } {
  if (e instanceof Error || (typeof e === 'object' && e !== null && 'message' in e)) {
    const err = e as { name?: unknown; message?: unknown; cause?: unknown };
    const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
    const causeCode = typeof cause === 'object' && cause !== null ? String(cause.code ?? cause.message ?? '') : '';
    return { name: String(err.name ?? ''), message: String(err.message ?? ''), causeCode };
  }
  return { name: '', message: String(e), causeCode: '' };
}

/** The repo-relative file of a Hub URL (`…/<id>/resolve/<rev>/<file>`) or of a local/cache path containing `<id>/`. */
export function fileFromLocation(location: string, modelId: string): string | undefined {
  const resolved = /\/resolve\/[^/]+\/(.+)$/.exec(location.split('?')[0]!);
  if (resolved) return decodeURIComponent(resolved[1]!);
  const at = location.replace(/\\/g, '/').lastIndexOf(`${modelId}/`);
  if (at >= 0) return location.replace(/\\/g, '/').slice(at + modelId.length + 1);
  return undefined;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}

/** Converts whatever a model load threw into a ModelLoadError (returned unchanged if it already is one). */
export function toModelLoadError(e: unknown, modelId: string, ctx: ErrorContext = {}): ModelLoadError {
  if (e instanceof ModelLoadError) return e;
  const { name, message, causeCode } = errorText(e);
  if (ctx.replayed && ctx.web) {
    return new ModelLoadError(
      `Model "${modelId}" could not start because an earlier model failed to start in this tab (${message.trim()}); ` +
        'transformers.js then refuses every later model in the same page or worker. Reload the page (or recreate the worker).',
      { modelId, kind: 'restart-required', cause: e },
    );
  }
  const quotedUrl = /"((?:https?|blob):\/\/[^"]+)"/.exec(message)?.[1];
  const guessFile = ctx.inFlight?.[0];
  const q = (s: string) => `"${s}"`;
  const id = q(modelId);

  // HTTP answers: status on ModelFileNotFoundError, else the status text of transformers.js's handleError().
  const status =
    typeof (e as { status?: unknown })?.status === 'number'
      ? (e as { status: number }).status
      : (STATUS_TEXTS.find(([, re]) => re.test(message))?.[0] ?? (Number(/^Error \((\d{3})\)/.exec(message)?.[1] ?? NaN) || undefined));
  if (name === 'ModelFileNotFoundError' || quotedUrl !== undefined) {
    if (/invalid model ID/i.test(message)) {
      return new ModelLoadError(
        `${id} is not a valid model id. Use "owner/name" as on the Hugging Face Hub (letters, digits, '-', '_', '.').`,
        { modelId, kind: 'invalid-id', cause: e },
      );
    }
    const local = /not found locally at "([^"]+)"/.exec(message)?.[1];
    if (local !== undefined) {
      const file = fileFromLocation(local, modelId) ?? guessFile;
      return new ModelLoadError(
        `Model ${id}: ${file ? `file ${q(file)}` : 'a file'} is not in the local model folder and downloads are disabled. ` +
          'Put the file there, or allow remote models.',
        { modelId, kind: 'offline', file, cause: e },
      );
    }
    const file = (quotedUrl && fileFromLocation(quotedUrl, modelId)) || guessFile;
    const code = status;
    if (code === 404 || code === 401 || code === 403) {
      const what =
        file === 'config.json' || file === undefined
          ? `Model ${id} was not found at ${ctx.remoteHost ?? hostOf(quotedUrl) ?? 'the model host'}${code === 404 ? '' : ` (HTTP ${code})`}. ` +
            'Check the model id' +
            (code === 404 ? '' : '; the Hub answers 401/403 both for repos that do not exist and for private or gated ones') +
            ', and the model host setting.'
          : `Model ${id} has no file ${q(file)} (HTTP ${code}). ` +
            (/\.onnx(_data(_\d+)?)?$/.test(file)
              ? 'The repo may not ship this dtype: choose another dtype (fp32 is model.onnx, q8 is model_quantized.onnx) or another model.'
              : 'Check that the model id points to a transformers.js-compatible (ONNX) repo.');
      return new ModelLoadError(what, { modelId, kind: 'not-found', file, status: code, url: quotedUrl, cause: e });
    }
    if (code !== undefined) {
      return new ModelLoadError(
        `Model ${id}: the model host answered HTTP ${code}${file ? ` for ${q(file)}` : ''}. Try again later, or check the model host setting.`,
        { modelId, kind: 'http', file, status: code, url: quotedUrl, cause: e },
      );
    }
  }

  if (/both local and remote models are disabled/i.test(message)) {
    return new ModelLoadError(
      `Model ${id}: downloads are disabled and no local model folder is set. Allow remote models, or set a local model path.`,
      { modelId, kind: 'offline', cause: e },
    );
  }

  if (NETWORK_MESSAGES.some((re) => re.test(message) || re.test(causeCode))) {
    const host = ctx.remoteHost ?? 'the model host';
    const broke = /^terminated$/i.test(message) || /ECONNRESET|UND_ERR_SOCKET/.test(causeCode);
    return new ModelLoadError(
      broke
        ? `Model ${id}: the download${guessFile ? ` of ${q(guessFile)}` : ''} from ${host} was interrupted. Check the connection and load again.`
        : `Model ${id}: could not reach ${host}${causeCode ? ` (${causeCode})` : ''}. Check the network connection and the model host setting.`,
      { modelId, kind: 'unreachable', file: guessFile, cause: e },
    );
  }

  if (/protobuf parsing failed|failed to load model|can't create a session|invalid_protobuf|invalid model/i.test(message) && !/no available backend/i.test(message)) {
    const path = /Load model from (.+?) failed/.exec(message)?.[1];
    const lastOnnx = [...(ctx.done ?? [])].reverse().find((f) => /\.onnx(_data(_\d+)?)?$/.test(f));
    const file = (path && fileFromLocation(path, modelId)) || lastOnnx || guessFile;
    return new ModelLoadError(
      `Model ${id}: ${file ? `the file ${q(file)}` : 'the ONNX file'} is truncated or corrupt (${message.trim()}). ` +
        'Delete the cached copy (clearCachedModel) and load it again' +
        (ctx.web ? '; then reload the page, since a failed ONNX session blocks later model loads in this tab.' : '.'),
      { modelId, kind: 'corrupt', file, cause: e, restartRequired: ctx.web === true },
    );
  }

  if (name === 'SyntaxError' && /JSON/i.test(message)) {
    const file = [...(ctx.done ?? [])].reverse().find((f) => f.endsWith('.json')) ?? guessFile;
    return new ModelLoadError(
      `Model ${id}: ${file ? `the file ${q(file)}` : 'a JSON file'} is not valid JSON (${message}). ` +
        'Delete the cached copy (clearCachedModel) and load it again; if it persists, the repo is broken.',
      { modelId, kind: 'corrupt', file, cause: e },
    );
  }

  if (/reading 'tokenizer_class'/.test(message)) {
    return new ModelLoadError(
      `Model ${id} has no tokenizer_config.json (or it could not be read). Check the model id; a transformers.js model needs ` +
        'config.json, tokenizer.json and tokenizer_config.json.',
      { modelId, kind: 'not-found', file: 'tokenizer_config.json', cause: e },
    );
  }

  if (/Unsupported device|not supported|no available backend|webgpu is not supported|backend not found/i.test(message)) {
    const blocked = ctx.web === true && SESSION_FAILURE.test(message);
    return new ModelLoadError(
      `Model ${id}: ${message.trim()} Choose another device or dtype` +
        (blocked ? ', then reload the page: a failed ONNX session blocks later model loads in this tab.' : '.'),
      { modelId, kind: 'unsupported', cause: e, restartRequired: blocked },
    );
  }

  return new ModelLoadError(`Model ${id} could not be loaded: ${message || String(e)}`, { modelId, kind: 'unknown', file: guessFile, cause: e });
}
