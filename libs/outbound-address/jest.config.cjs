// Unit tier: *.spec.ts beside the code; names resolve through a fake lookup, no network.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'outbound-address',
  roots: ['<rootDir>/libs/outbound-address/src'],
  testMatch: ['**/*.spec.ts'],
};
