/* `node -r ./scripts/ts-register.js file.ts` runs TypeScript sources without a build (benchmarks, scripts,
 * and tests that spawn the real entry point), with the same SWC options as Jest. */
const { transformSync } = require('@swc/core');
const { readFileSync } = require('node:fs');
const options = require('./swc-options');

require.extensions['.ts'] = function compile(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};
