// Helpers shared by the scripts: where the repo is, and how to list and write the generated .wat files.

import { mkdirSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Repo-relative, '/'-separated paths of every file under root/dir whose name ends with `suffix`, sorted. */
export function listFiles(root, dir, suffix) {
  const start = join(root, dir);
  if (!existsSync(start)) return [];
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(suffix)) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(start);
  return out.sort();
}

/** Every .wat under root/wasm, as repo-relative paths. */
export const listWat = (root) => listFiles(root, 'wasm', '.wat');
export const listWgsl = (root) => listFiles(root, 'wasm', '.wgsl');

/** Every checked-in generated file under root/wasm: the .wat and .wgsl modules and their params.js. */
export const listGenerated = (root) => [...listWat(root), ...listWgsl(root), ...listFiles(root, 'wasm', 'params.js')].sort();

/**
 * Write every shipped module under `root` (its `path` is repo-relative). Imports codegen lazily so the
 * scripts that do not generate (build-wasm) load nothing they do not need.
 * @returns the modules written, [{ name, path, wat }]
 */
export async function writeShippedModules(root) {
  const { shippedModules } = await import('../codegen/modules/shipped.js');
  const modules = shippedModules();
  for (const { path, wat, paramsPath, paramsJs } of modules) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, wat);
    if (paramsPath) writeFileSync(join(root, paramsPath), paramsJs);
  }
  return modules;
}

/** Exit with a one-line message (and a stack trace only when DEBUG is set). */
export function fail(scriptName, error, code = 1) {
  console.error(`${scriptName}: ${error?.message ?? error}`);
  if (process.env.DEBUG && error?.stack) console.error(error.stack);
  process.exit(code);
}

/**
 * The options of a benchmark CLI (node:util parseArgs, plus --help): prints `help` and exits 0 on --help,
 * exits 2 with the parse error and `help` on bad options.
 */
export function parseCli(scriptName, help, options) {
  let values;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', default: false } } }));
  } catch (e) {
    console.error(`${scriptName}: ${e.message}\n${help}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(help);
    process.exit(0);
  }
  return values;
}

/** Print a table with columns padded to their widest cell, right-aligned. */
export function printTable(header, rows) {
  const widths = header.map((h, i) => Math.max(String(h).length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

/** The JS runtime running this script, for the machine line of a benchmark: Node, Bun or Deno with its version. */
export function runtimeName() {
  if (globalThis.Bun) return `Bun ${globalThis.Bun.version}`;
  if (globalThis.Deno) return `Deno ${globalThis.Deno.version.deno}`;
  return `Node ${process.version}`;
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((u, v) => u - v);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Whether two byte arrays hold the same bytes. */
export const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The median ms of `runs` awaited calls of fn, after `warmup` untimed ones. */
export async function medianMs(fn, runs, { warmup = 0 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}
