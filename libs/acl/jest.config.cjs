module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'acl',
  roots: ['<rootDir>/libs/acl/src'],
  testMatch: ['**/*.spec.ts'],
};
