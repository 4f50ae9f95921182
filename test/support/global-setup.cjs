require('../../tools/jest/native-resolution.cjs');
const { TestPostgres } = require('@corral/testing');

// The PostgreSQL server the control planes under test use through DATABASE_URL (each its own database).
module.exports = async function globalSetup() {
  const postgres = await TestPostgres.start();
  postgres.handOver();
  globalThis.corralTestPostgres = postgres;
};
