require('../../../tools/jest/native-resolution.cjs');
module.exports = require('./global-teardown.ts').default;
