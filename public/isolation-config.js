// Threads in ONNX Runtime need cross-origin isolation. Where the host sends no COOP/COEP headers,
// coi-serviceworker (loaded right after this file) adds them from a service worker (one reload on the first visit).
// Not inside a frame, whose parent decides; off when Settings says so ("isolationShim" in the stored settings, see
// src/ui/app/settings.ts). A file rather than an inline script, so the Content-Security-Policy needs no 'unsafe-inline'.
(function () {
  var off = false;
  try { off = JSON.parse(localStorage.getItem('rag-lab:settings') || '{}').isolationShim === false; } catch (e) {}
  window.coi = {
    shouldRegister: function () { return !off && window.self === window.top; },
    shouldDeregister: function () { return off; },
    quiet: true,
  };
})();
