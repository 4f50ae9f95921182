// E2E tier: the built control plane as child processes, over real HTTPS, with real PostgreSQL.
module.exports = {
  ...require('../jest.preset.cjs'),
  displayName: 'e2e',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.cjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.cjs',
  testTimeout: 120000,
  maxWorkers: 2,
};
