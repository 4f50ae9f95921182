// Unit tier: *.spec.ts beside the code, against real TLS servers on 127.0.0.1.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'pinned-tls',
  roots: ['<rootDir>/libs/pinned-tls/src'],
  testMatch: ['**/*.spec.ts'],
};
