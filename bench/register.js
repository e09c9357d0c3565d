/*
 * Runs the TypeScript benchmarks without a build: compiles .ts files on require with @swc/core (already a
 * dev dependency, through @swc/jest), resolving @app/* like Jest does. Usage: node -r ./bench/register.js x.ts
 */
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');
const { transformSync } = require('@swc/core');

const root = resolve(__dirname, '..');
require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
      baseUrl: root,
      paths: { '@app/*': ['libs/*/src'] },
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
