/** The ONNX Runtime Web files the app serves itself (copied from node_modules/onnxruntime-web/dist at build time). */
export const ORT_DIR = 'ort';
export const ORT_FILES = ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'] as const;

/** Absolute URLs of the glue module and the wasm binary relative to the page's base URL. */
export function ortWasmPaths(baseUrl: string): { mjs: string; wasm: string } {
  return {
    mjs: new URL(`${ORT_DIR}/${ORT_FILES[0]}`, baseUrl).href,
    wasm: new URL(`${ORT_DIR}/${ORT_FILES[1]}`, baseUrl).href,
  };
}
