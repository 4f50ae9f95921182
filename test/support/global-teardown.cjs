module.exports = async function globalTeardown() {
  await globalThis.corralTestPostgres?.stop();
};
