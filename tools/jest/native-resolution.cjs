// Jest runs global setup and teardown with Node's own require, where the preset's moduleNameMapper
// does not apply: this maps the same two things (`./x.js` to `./x.ts`, `@corral/<lib>` to its source).
const Module = require('node:module');
const { join } = require('node:path');

const root = join(__dirname, '../..');
const resolve = Module._resolveFilename;

Module._resolveFilename = function resolveTypeScript(request, parent, ...rest) {
  const lib = /^@corral\/([a-z-]+)$/.exec(request);
  if (lib) return resolve.call(this, join(root, 'libs', lib[1], 'src/index.ts'), parent, ...rest);
  if (request.startsWith('.') && request.endsWith('.js') && parent?.filename?.endsWith('.ts')) {
    try {
      return resolve.call(this, `${request.slice(0, -3)}.ts`, parent, ...rest);
    } catch {
      // Not a TypeScript source: resolve as given.
    }
  }
  return resolve.call(this, request, parent, ...rest);
};
