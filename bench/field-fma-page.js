// The page side of `node bench/field-fma.bench.js --browser`: bundled by esbuild into a page that the script
// serves on 127.0.0.1 (cross-origin isolated, for the finer clock) and drives in headless Chromium. It only
// exposes the shared measurement (bench/field-fma-measure.js); the script hands it each field's compiled kernels
// (page.evaluate) and gets the table row back.

import { measureKernels, engineName } from './field-fma-measure.js';

window.fieldFmaBench = {
  engine: engineName,
  measure: measureKernels,
  environment: () => ({ crossOriginIsolated: globalThis.crossOriginIsolated === true, cores: navigator.hardwareConcurrency, userAgent: navigator.userAgent }),
};
document.body.dataset.state = 'ready';
