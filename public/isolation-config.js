// Threads in ONNX Runtime need cross-origin isolation. Where the host sends no COOP/COEP headers,
// coi-serviceworker (loaded right after this file) adds them from a service worker (one reload on the first visit).
// Not inside a frame, whose parent decides; off when Settings says so ("isolationShim" in the stored settings, see
// src/ui/app/settings.ts). A file rather than an inline script, so the Content-Security-Policy needs no 'unsafe-inline'.
// `reloadPending`: coi-serviceworker is about to register and reload this page, so the app waits rather than open the
// knowledge base twice (src/ui/app/isolation-wait.ts); `script` is the URL it registers.
(function () {
  var off = false;
  try { off = JSON.parse(localStorage.getItem('rag-lab:settings') || '{}').isolationShim === false; } catch (e) {}
  var register = !off && window.self === window.top;
  var sw = navigator.serviceWorker;
  window.coi = {
    shouldRegister: function () { return register; },
    shouldDeregister: function () { return off; },
    quiet: true,
    reloadPending: register && window.crossOriginIsolated === false && window.isSecureContext === true && !!sw && !sw.controller,
    script: new URL('coi-serviceworker.js', document.baseURI).href,
  };
})();
