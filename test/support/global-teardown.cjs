const { closeTestRun } = require('@corral/testing');

module.exports = async function globalTeardown() {
  await globalThis.corralTestPostgres?.stop();
  await closeTestRun();
};
