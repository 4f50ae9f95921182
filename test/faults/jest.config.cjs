// Fault tier: a real control plane and a real agent (sim driver) as child processes, with real
// PostgreSQL, killed and restarted (PostgreSQL cut off through a proxy) under a workload.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'faults',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.fault-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.cjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.cjs',
  testTimeout: 300000,
  maxWorkers: 1,
};
