// The pool's thread in Node (worker_threads).
import { parentPort } from 'node:worker_threads';
import { serveThread } from './worker.js';

serveThread({ post: (message, transfer) => parentPort.postMessage(message, transfer), listen: (onMessage) => parentPort.on('message', onMessage) });
