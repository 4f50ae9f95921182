module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'pg-cluster',
  roots: ['<rootDir>/libs/pg-cluster/src'],
  testMatch: ['**/*.spec.ts'],
};
