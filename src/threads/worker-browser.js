// The pool's thread in a browser (a module Web Worker). scripts/build-wasm.js bundles this file and what it
// imports into one script, wasm/threads-worker.js, which the pool starts from a blob: URL.
import { serveThread } from './worker.js';

serveThread({
  post: (message, transfer) => self.postMessage(message, transfer),
  listen: (onMessage) => {
    self.onmessage = (event) => onMessage(event.data);
  },
});
