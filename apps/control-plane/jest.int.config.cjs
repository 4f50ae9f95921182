// Integration tier: *.int-spec.ts against real PostgreSQL, one database per file cloned from a migrated template.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'control-plane:int',
  roots: ['<rootDir>/apps/control-plane/src'],
  testMatch: ['**/*.int-spec.ts'],
  globalSetup: '<rootDir>/apps/control-plane/test-support/global-setup.cjs',
  globalTeardown: '<rootDir>/apps/control-plane/test-support/global-teardown.cjs',
  testTimeout: 60000,
};
