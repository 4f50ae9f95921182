// Unit tier: *.spec.ts beside the code; the e2e suite (test/e2e/cli.e2e-spec.ts) runs the built command.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'cli',
  roots: ['<rootDir>/apps/cli/src'],
  testMatch: ['**/*.spec.ts'],
};
