// Starting the pool's threads in Node: worker_threads, unreferenced while idle so an idle pool never keeps
// the process alive. Chosen over host-browser.js by the "node" condition of package.json "imports".
import { Worker } from 'node:worker_threads';
import { availableParallelism, freemem, totalmem } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const defaultThreadCount = () => availableParallelism();

/**
 * The memory the machine offers, for the default working set (working-set.js); {} where the runtime refuses to say
 * (Deno without --allow-sys throws NotCapable): then the working set is the 256 MiB of a runtime that does not know.
 */
export function engineMemory() {
  try {
    return { totalBytes: totalmem(), freeBytes: freemem() };
  } catch {
    return {};
  }
}

/** Node always has SharedArrayBuffer. */
export const canShareMemory = () => true;

/**
 * The parent's Node options minus those that only make sense for its own entry (a worker inherits them,
 * and `node --input-type=module -e ...` would otherwise make every worker fail to start).
 */
function workerExecArgv() {
  const out = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (/^--input-type(=|$)/.test(a)) {
      if (a === '--input-type') i++;
    } else if (['-e', '--eval', '-p', '--print'].includes(a)) i++;
    else if (!/^--(eval|print)=/.test(a)) out.push(a);
  }
  return out;
}

export async function startWorker() {
  const url = new URL('./worker-node.js', import.meta.url);
  // A bundle for Node (esbuild --platform=node, a server build) moves this module but not the worker's files
  if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
    throw new Error(`wasmsm's thread pool cannot find its worker (${fileURLToPath(url)}): a bundle for Node must keep wasmsm external (esbuild --external:wasmsm, webpack externals), so that its files stay where they are installed`);
  }
  const execArgv = workerExecArgv();
  // Inherit the parent's options unless some had to go; Node refuses some process-wide ones when they are
  // passed explicitly (--max-old-space-size, --expose-gc, ...): then start with none.
  let worker;
  try {
    worker = new Worker(url, execArgv.length === process.execArgv.length ? {} : { execArgv });
  } catch (e) {
    if (e?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
    worker = new Worker(url, { execArgv: [] });
  }
  worker.unref();
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onFailure) {
      worker.on('message', onMessage);
      worker.on('error', onFailure);
      worker.on('exit', (code) => onFailure(new Error(`the worker thread exited with code ${code}`)));
    },
    /** A busy worker keeps the process alive until the MSM it runs is answered. */
    hold: (busy) => (busy ? worker.ref() : worker.unref()),
    terminate: () => worker.terminate(),
  };
}
