/** What a fresh models worker loads after a failed run (src/lib/models/device-fallback.ts). */
import { describe, expect, it } from 'vitest';
import { planRecovery, runtimeReason, wasmDtypeFor } from '../../src/lib/models/device-fallback.ts';

describe('planRecovery', () => {
  it('WebGPU models move to WASM (fp32 and uint8 stay, fp16 and q4 become q8) and say why; the others load as they were', () => {
    const plan = planRecovery([
      { task: 'embedder', spec: { id: 'a/emb', device: 'webgpu', dtype: 'fp32' }, fallback: null },
      { task: 'cross-encoder', spec: { id: 'a/ce', device: 'webgpu', dtype: 'fp16' }, fallback: null },
      { task: 'nli', spec: { id: 'a/nli', device: 'wasm', dtype: 'q8' }, fallback: 'WebGPU could not start this model (no adapter); using WASM q8.' },
    ], 'Device was lost');
    expect(plan).toEqual([
      { task: 'embedder', spec: { id: 'a/emb', device: 'wasm', dtype: 'fp32' }, fallback: 'WebGPU failed mid-run (Device was lost); now on WASM fp32.' },
      { task: 'cross-encoder', spec: { id: 'a/ce', device: 'wasm', dtype: 'q8' }, fallback: 'WebGPU failed mid-run (Device was lost); now on WASM q8.' },
      { task: 'nli', spec: { id: 'a/nli', device: 'wasm', dtype: 'q8' }, fallback: 'WebGPU could not start this model (no adapter); using WASM q8.' },
    ]);
    expect(['fp32', 'fp16', 'q8', 'q4', 'uint8'].map((d) => wasmDtypeFor(d as 'fp32'))).toEqual(['fp32', 'q8', 'q8', 'q8', 'uint8']);
  });

  it("reasons: the browser's message quoted by ONNX Runtime, else ORT's text without code and source path", () => {
    // As onnxruntime-web 1.31 reports a run after the GPUDevice was destroyed (seen in the WebGPU e2e test).
    const lost = "failed to call OrtRun(). ERROR_CODE: 1, ERROR_MESSAGE: /mnt/azure_nvme_temp/_work/1/s/onnxruntime/core/providers/webgpu/buffer_manager.cc:643 void onnxruntime::webgpu::BufferManager::Download(WGPUBuffer, void *, size_t) const map_async_result.status == wgpu::MapAsyncStatus::Success was false. Failed to download data from buffer. wgpu::MapAsyncStatus value: 4, message: Failed to execute 'mapAsync' on 'GPUBuffer': The Device was lost before mapping was resolved.";
    expect(runtimeReason(lost)).toBe("Failed to execute 'mapAsync' on 'GPUBuffer': The Device was lost before mapping was resolved.");
    expect(runtimeReason('failed to call OrtRun(). ERROR_CODE: 6, ERROR_MESSAGE: /src/core/framework/bfc_arena.cc:359 Failed to allocate memory for requested buffer of size 123'))
      .toBe('Failed to allocate memory for requested buffer of size 123');
    expect(runtimeReason('Out of memory')).toBe('Out of memory');
    expect(runtimeReason('Model "o/m" could not be loaded: The device (webgpu) does not support fp16.')).toBe('The device (webgpu) does not support fp16.');
    expect(runtimeReason(`Model "o/m": WebGPU is not available here (no GPU adapter). Use device 'wasm'.`)).toBe(`WebGPU is not available here (no GPU adapter). Use device 'wasm'.`);
    expect(planRecovery([{ task: 'embedder', spec: { id: 'a/e', device: 'webgpu', dtype: 'fp32' }, fallback: null }], lost)[0]!.fallback)
      .toBe("WebGPU failed mid-run (Failed to execute 'mapAsync' on 'GPUBuffer': The Device was lost before mapping was resolved.); now on WASM fp32.");
  });

  it('long runtime messages are cut', () => {
    const [p] = planRecovery([{ task: 'embedder', spec: { id: 'a/e', device: 'webgpu', dtype: 'fp32' }, fallback: null }], 'x'.repeat(500));
    expect(p!.fallback!.length).toBeLessThan(260);
    expect(p!.fallback).toMatch(/x…\); now on WASM fp32\.$/);
  });
});
