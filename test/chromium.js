// Whether this run drives Chromium: the e2e suites and the wide build's suites (test/wide-engine.js) ask here.

import { findChromium } from '../examples/browser/harness.js';

/**
 * Set by .ci/run for its second Node: the suites that drive Chromium are skipped on purpose there, since Chromium
 * runs them the same whichever Node drives it (they ran under the first).
 */
export const CHROMIUM_SUITES_SKIPPED = process.env.WASMSM_CHROMIUM_SUITES === 'skip';

/**
 * Whether a suite that drives Chromium is skipped in this run (with a message naming `file`): on purpose
 * (CHROMIUM_SUITES_SKIPPED), or outside CI when no chromium is found. In CI (CI=true) a missing chromium fails.
 */
export function skipChromiumSuite(file) {
  const why = CHROMIUM_SUITES_SKIPPED ? 'WASMSM_CHROMIUM_SUITES=skip'
    : !findChromium() && !process.env.CI ? 'no chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)' : null;
  if (why) console.warn(`${file}: SKIPPED: ${why}`);
  return why !== null;
}
