// Shared by every Jest config: swc compiles TypeScript (and the ESM-only NestJS packages) to
// CommonJS for Jest; type-checking is tsc's job, not Jest's.
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    // Without these two, Nest silently injects `undefined`: it reads constructor parameter types from
    // emitted decorator metadata, and class fields defined by the language would shadow injected ones.
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2023',
    keepClassNames: true,
  },
  // `import()` stays native: the embedded PostgreSQL's binary package is ESM.
  module: { type: 'commonjs', ignoreDynamic: true },
  sourceMaps: 'inline',
};

const esmOnly = ['@nestjs', 'jose', 'file-type', 'strtok3', 'token-types', '@tokenizer', 'uint8array-extras', '@borewit'];

module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', swc] },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleNameMapper: {
    '^@corral/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^@corral/([a-z-]+)/([a-z-]+)$': '<rootDir>/libs/$1/src/$2.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};
