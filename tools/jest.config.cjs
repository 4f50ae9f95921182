// Unit tests of the workspace's own tooling.
module.exports = { ...require('../jest.preset.cjs'), displayName: 'tools', roots: ['<rootDir>/tools'], testMatch: ['**/*.spec.ts'] };
