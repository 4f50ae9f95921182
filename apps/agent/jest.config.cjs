// Unit and integration tier: *.spec.ts beside the code (real wss servers, temporary host roots); the e2e suite runs the built agent against a real control plane.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'agent',
  roots: ['<rootDir>/apps/agent/src'],
  testMatch: ['**/*.spec.ts'],
};
