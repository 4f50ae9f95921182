require('../../../tools/jest/native-resolution.cjs');
module.exports = require('./global-setup.ts').default;
