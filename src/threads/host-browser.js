// Starting the pool's threads in a browser: module Web Workers from one self-contained script
// (wasm/threads-worker.js, built from worker-browser.js), loaded through a blob: URL so no bundler needs
// a plugin or a worker entry (CSP: worker-src blob:). The script's chunk is fetched on the first pool only.

let scriptUrl = null;

export const defaultThreadCount = () => globalThis.navigator?.hardwareConcurrency || 4;

/** The memory the device offers, for the default working set (working-set.js): navigator.deviceMemory where the browser has it (GiB, rounded; Chromium). */
export const engineMemory = () => ({ deviceGiB: globalThis.navigator?.deviceMemory });

/** SharedArrayBuffer (and a shared WebAssembly.Memory) needs a cross-origin isolated page (COOP + COEP). */
export const canShareMemory = () => globalThis.crossOriginIsolated === true;

function workerScriptUrl() {
  scriptUrl ??= import('../../wasm/threads-worker.js')
    .then((script) => URL.createObjectURL(new Blob([script.default], { type: 'text/javascript' })))
    .catch((e) => {
      scriptUrl = null;
      throw e;
    });
  return scriptUrl;
}

export async function startWorker() {
  const worker = new Worker(await workerScriptUrl(), { type: 'module', name: 'wasmsm' });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onFailure) {
      worker.onmessage = (event) => onMessage(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        onFailure(new Error(`the worker failed: ${event.message || 'script error (is worker-src blob: allowed by the page CSP?)'}`));
      };
      worker.onmessageerror = () => onFailure(new Error('a message from the worker could not be deserialized'));
    },
    hold() {},
    terminate: () => worker.terminate(),
  };
}
