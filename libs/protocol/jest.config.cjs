module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'protocol',
  roots: ['<rootDir>/libs/protocol/src'],
  testMatch: ['**/*.spec.ts'],
};
