#!/usr/bin/env node
// npm run gen:check: regenerate every shipped module into a temporary folder and compare it, byte for byte,
// with the checked-in wasm/**/*.wat. Exits 1 listing each differing, missing or extra file; CI runs this.

import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, listGenerated, writeShippedModules } from './lib.js';

/** 1-based number of the first line where a and b differ, with both versions of that line. */
function firstDifference(a, b) {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return { line: i + 1, checkedIn: la[i], generated: lb[i] };
  }
  return null;
}

const clip = (s) => (s === undefined ? '(end of file)' : s.length > 100 ? `${s.slice(0, 100)}...` : s);

const tmp = mkdtempSync(join(tmpdir(), 'wasmsm-gen-check-'));
try {
  const modules = await writeShippedModules(tmp);
  const expected = listGenerated(tmp);
  const actual = new Set(listGenerated(repoRoot));
  const problems = [];
  for (const path of expected) {
    if (!actual.has(path)) {
      problems.push(`missing:   ${path} (generated but not checked in)`);
      continue;
    }
    const checkedIn = readFileSync(join(repoRoot, path), 'utf8');
    const generated = readFileSync(join(tmp, path), 'utf8');
    if (checkedIn !== generated) {
      const d = firstDifference(checkedIn, generated);
      problems.push(
        `differs:   ${path} (first at line ${d.line})\n` +
          `             checked in: ${clip(d.checkedIn)}\n` +
          `             generated:  ${clip(d.generated)}`,
      );
    }
  }
  for (const path of actual) {
    if (!expected.includes(path)) problems.push(`extra:     ${path} (checked in but no shipped module generates it)`);
  }
  if (problems.length) {
    console.error(`gen:check: ${problems.length} generated file(s) out of date:`);
    for (const p of problems) console.error(`  ${p}`);
    console.error('Run `npm run gen` and commit the wasm/ changes.');
    process.exitCode = 1;
  } else {
    console.log(`gen:check: wasm/ is up to date (${modules.length} modules, ${expected.length} generated files match).`);
  }
} catch (e) {
  console.error(`gen:check: ${e.message}`);
  if (process.env.DEBUG) console.error(e.stack);
  process.exitCode = 1;
} finally {
  if (existsSync(tmp)) rmSync(tmp, { recursive: true, force: true });
}
