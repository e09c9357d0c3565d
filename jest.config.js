/** Jest runs every *.spec.ts (unit and integration) under libs/, apps/ and test/. */
const swc = require('./scripts/swc-options');

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{apps,libs,test}/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', swc],
    // The OTLP/HTTP exporter loads node:http through import(), which Jest's CommonJS sandbox cannot run
    // without --experimental-vm-modules; openid-client 6 and its dependencies are ESM only (Node's require()
    // loads them in the server, Jest's module loader cannot): compile these packages to CommonJS.
    '/node_modules/(@opentelemetry/otlp-exporter-base|openid-client|oauth4webapi|jose)/.+\\.js$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(@opentelemetry/otlp-exporter-base|openid-client|oauth4webapi|jose)/)',
  ],
  moduleNameMapper: {
    '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
    // One native binding per worker, its JavaScript once per test file: see the file.
    '^kerberos$': '<rootDir>/test/support/kerberos-once.js',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 2,
  // A worker keeps something of every test file it ran (Jest's module registries, about 17 MB a file here), and
  // one that ran 100 files ended at 3.4 GB, whose exit (V8 tearing its heap down) took 700 ms: past the 500 ms
  // Jest gives it before it force-exits the worker. Restarted once its heap passes 1 GB after a file, a worker
  // stays small and ends in time.
  workerIdleMemoryLimit: '1GB',
  testTimeout: 60000,
  verbose: false,
};
