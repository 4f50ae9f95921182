// Unit tier: the console's logic that needs no browser (*.spec.ts beside the code); the browser
// tests (test/e2e/console.e2e-spec.ts) drive the built console in Chromium.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'console',
  roots: ['<rootDir>/apps/console/src'],
  testMatch: ['**/*.spec.ts'],
};
