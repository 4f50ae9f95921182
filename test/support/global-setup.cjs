require('../../tools/jest/native-resolution.cjs');
const { openTestRun, TestPostgres } = require('@corral/testing');

// The run's folder (removed at its end, with the data directories of the control planes started
// without one of their own), and the PostgreSQL server the control planes under test use through
// DATABASE_URL (each its own database).
module.exports = async function globalSetup() {
  await openTestRun();
  const postgres = await TestPostgres.start();
  postgres.handOver();
  globalThis.corralTestPostgres = postgres;
};
