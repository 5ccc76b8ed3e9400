// The pool's threads: one worker each (started through #threads-host), asked to run one operation at a time,
// and the set of them that the pool and its two paths share (src/threads/shared-path.js, message-path.js).

import { startWorker } from '#threads-host';
import { inputError } from '../msm/bytes.js';
import { letGoOf } from '../msm/buffers.js';

/** The Error a worker reported as data (worker.js errorData); an input's index re-based by `offset`. */
export function errorFromData(data, offset = 0) {
  if (data.argument && typeof data.index === 'number') return inputError(data.argument, data.index + offset, data.reason);
  const Type = { RangeError, TypeError }[data.name] ?? Error;
  const e = new Type(data.message);
  if (!(data.name in { RangeError: 1, TypeError: 1, Error: 1 })) e.name = data.name;
  if (data.need !== undefined) e.need = data.need; // plan.js budgetError
  return e;
}

/** One worker: started, initialised, then asked to run one operation at a time. */
export class Thread {
  #host; // promise of the host's worker handle
  #pending = null; // { resolve, reject, onProgress } of the operation running
  #initialised = null; // { resolve, reject } until the worker answers init
  #nextId = 1;

  /** startHost: the host's worker start (#threads-host; tests give one that fails). */
  constructor(init, label, startHost = startWorker) {
    this.label = label;
    this.dead = false;
    /** Bytes of the Wasm memories of its own the worker held after its last operation (message path). */
    this.memoryBytes = 0;
    /** What becomes of the buffers an operation's message brought and the worker sent back (run's giveBack, Workers.onSpent). */
    this.onSpent = (buffers) => letGoOf(...buffers);
    this.#host = startHost();
    this.ready = this.#start(init);
    this.ready.catch(() => {});
  }

  async #start(init) {
    let host;
    try {
      host = await this.#host;
    } catch (error) {
      this.dead = true; // a worker that could not start: the next ready() starts another in its place
      throw error;
    }
    if (this.dead) {
      // stopped before its worker came: no handshake would ever answer
      host.terminate();
      throw new Error(`wasmsm thread ${this.label} was stopped`);
    }
    const done = new Promise((resolve, reject) => {
      this.#initialised = { resolve, reject };
    });
    host.listen(
      (message) => {
        if (message.type === 'ready') this.#initialised.resolve();
        else if (message.type === 'initFailed') {
          // a thread that cannot start is ended, and replaced before the next call
          this.#initialised.reject(errorFromData(message.error));
          this.terminate();
        }
        else if (message.type === 'progress') this.#pending?.onProgress?.(message.fraction);
        else if (message.type === 'done' || message.type === 'failed') {
          const pending = this.#pending;
          this.#pending = null;
          if (message.memoryBytes !== undefined) this.memoryBytes = message.memoryBytes;
          if (message.spent?.length) this.onSpent(message.spent);
          if (message.type === 'done') {
            pending?.onTimes?.(message.started, message.ended, message.steps);
            pending?.resolve(message.result);
          }
          else pending?.reject(message.error);
        }
      },
      (error) => {
        this.#fail(`failed: ${error?.message ?? error}`);
        this.terminate(); // a browser worker that reported an error may still be running
      },
    );
    // Starting counts as busy: the process must not exit while a pool is being made.
    host.hold(true);
    host.post(init, []);
    try {
      await done;
    } finally {
      host.hold(false);
    }
  }

  /** The worker is gone (or going): whatever waits on it rejects. */
  #fail(what) {
    if (this.dead) return;
    this.dead = true;
    const message = `wasmsm thread ${this.label} ${what}`;
    this.#initialised?.reject(new Error(message));
    this.#pending?.reject({ name: 'Error', message });
    this.#pending = null;
  }

  /**
   * Resolves with the operation's result; rejects with error data ({ name, message, ... }). onTimes(started, ended,
   * steps): when the operation ran on the thread (timeline.js), called before the result resolves. giveBack: the
   * buffers of `args`' arrays come back to onSpent once the operation is done (else the thread lets go of them).
   */
  async run(op, args, { transfer = [], onProgress, onTimes, giveBack = false } = {}) {
    if (this.dead) throw { name: 'Error', message: `wasmsm thread ${this.label} is not running` };
    const host = await this.#host;
    try {
      host.hold(true);
      return await new Promise((resolve, reject) => {
        this.#pending = { resolve, reject, onProgress, onTimes };
        host.post({ type: 'run', id: this.#nextId++, op, args, giveBack }, transfer);
      });
    } finally {
      host.hold(false);
    }
  }

  /** Tests only: end the worker as a crash would (the failure path runs). */
  async crashForTesting() {
    (await this.#host).terminate();
  }

  async terminate() {
    this.#fail('was stopped');
    let host;
    try {
      host = await this.#host;
    } catch {
      return; // never started: nothing to stop
    }
    await host.terminate();
  }
}

/** The pool's threads: started from init messages, replaced when dead, asked to run operations together. */
export class Workers {
  #initFor;
  /** The running call's Timeline (timeline.js) while it asked for timings: runAll records every operation in it. */
  timeline = null;

  /**
   * What becomes of the buffers a thread's operation is done with, sent back where runAll's task asked (giveBack): set
   * by the path (MessagePath keeps its slices' for its next slices); else they are let go of at once.
   */
  onSpent = null;

  /** initFor(t): the init message of thread t (what its path gives it). */
  constructor(count, initFor) {
    this.count = count;
    this.#initFor = initFor;
    this.list = Array.from({ length: count }, (_, t) => this.#thread(t));
  }

  #thread(t) {
    const thread = new Thread(this.#initFor(t), t);
    thread.onSpent = (buffers) => (this.onSpent ? this.onSpent(buffers) : letGoOf(...buffers));
    return thread;
  }

  /** Bytes of the Wasm memories the running threads hold of their own (each one's last report; a stopped thread's went with it). */
  memoryBytes() {
    return this.list.reduce((sum, thread) => sum + (thread.dead ? 0 : thread.memoryBytes), 0);
  }

  /** Set by close(): ready() starts no thread any more (a release or an abort under way when the pool closed). */
  closed = false;

  /** Replace dead threads, then wait until every thread is ready. */
  async ready() {
    if (this.closed) throw new Error('the thread pool is closed');
    this.list = this.list.map((thread, t) => (thread.dead ? this.#thread(t) : thread));
    await Promise.all(this.list.map((thread) => thread.ready));
  }

  /** Stop every thread for good. */
  async close() {
    this.closed = true;
    await this.stop();
  }

  /** Stop the threads in `which` (all by default); the next ready() starts new ones in their place. */
  async stop(which = this.list.map((_, t) => t)) {
    await Promise.all(which.map((t) => this.list[t].terminate()));
  }

  /**
   * Each task ({ args, transfer, done }, or a function that makes it when a thread takes it: its arrays then exist
   * only from then on) runs `op` on the next thread that is free, and done(result), if given, as its result comes;
   * resolves to the results in the tasks' order. Waits for every task that started, then throws the first error.
   */
  async runEach(op, tasks) {
    const results = new Array(tasks.length);
    let next = 0;
    let error = null;
    await Promise.all(
      this.list.map(async (thread) => {
        while (next < tasks.length && !error) {
          const i = next++;
          try {
            const task = typeof tasks[i] === 'function' ? tasks[i]() : tasks[i];
            results[i] = await thread.run(op, task.args, { transfer: task.transfer });
            task.done?.(results[i]);
          } catch (e) {
            error ??= errorFromData(e);
          }
        }
      }),
    );
    if (error) throw error;
    return results;
  }

  /** Every thread runs op(argsOf(t)); waits for all (no thread may still write memory that is freed), then throws the first error. */
  async runAll(op, argsOf, { onProgress, offsetOf = () => 0 } = {}) {
    const outcomes = await Promise.allSettled(
      this.list.map((thread, t) => {
        const args = argsOf(t);
        if (!args) return null;
        const timeline = this.timeline;
        const onTimes = timeline && ((started, ended, steps) => timeline.record(t, op, started, ended, steps));
        return thread.run(op, args.args, { transfer: args.transfer, giveBack: args.giveBack, onProgress: onProgress && ((f) => onProgress(t, f)), onTimes });
      }),
    );
    const failed = outcomes.map((o, t) => [o, t]).filter(([o]) => o.status === 'rejected');
    if (failed.length) {
      // The lowest input index first, so the error names the first bad input.
      const errors = failed.map(([o, t]) => errorFromData(o.reason, offsetOf(t)));
      errors.sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity));
      // budgets too small (plan.js budgetError): the threads' slices may need different amounts, and the least that
      // works for every thread is the largest
      const needs = errors.map((e) => e.need).filter((need) => need !== undefined);
      if (errors[0].need !== undefined) errors[0].need = Math.max(...needs);
      throw errors[0];
    }
    return outcomes.map((o) => o.value);
  }

}
