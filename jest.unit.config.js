/**
 * npm run test:unit — the tests that need no server, no database and no browser (pure logic, the console's
 * logic), in well under a minute, with no global set-up (no PostgreSQL, Redis or KDC started). The files are
 * listed in test/unit-tests.json; test/unit-tests.spec.ts checks that none of them starts anything. `npm test`
 * still runs every test, these included.
 */
const base = require('./jest.config');
const UNIT_TESTS = require('./test/unit-tests.json');

module.exports = {
  ...base,
  testMatch: UNIT_TESTS.map((path) => `<rootDir>/${path}`),
  globalSetup: undefined,
  globalTeardown: undefined,
};
