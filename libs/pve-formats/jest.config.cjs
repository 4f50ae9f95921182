module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'pve-formats',
  roots: ['<rootDir>/libs/pve-formats/src'],
  testMatch: ['**/*.spec.ts'],
};
