// Unit tier: *.spec.ts beside the code, no database, no Nest container.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'control-plane',
  roots: ['<rootDir>/apps/control-plane/src'],
  testMatch: ['**/*.spec.ts'],
};
