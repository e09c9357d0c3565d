/* The one set of SWC options for TypeScript outside the Nest build: Jest, the benchmarks, the scripts, and
 * the tests that spawn the real entry point. @app/* is resolved at transform time. */
const { resolve } = require('node:path');

module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
    baseUrl: resolve(__dirname, '..'),
    paths: { '@app/*': ['libs/*/src'] },
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
