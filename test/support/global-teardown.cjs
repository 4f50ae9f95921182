const { rm } = require('node:fs/promises');
const { TEST_RUN_FOLDER } = require('@corral/testing');

module.exports = async function globalTeardown() {
  await globalThis.corralTestPostgres?.stop();
  const folder = process.env[TEST_RUN_FOLDER];
  if (folder) await rm(folder, { recursive: true, force: true });
};
