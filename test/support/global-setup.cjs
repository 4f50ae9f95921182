require('../../tools/jest/native-resolution.cjs');
const { mkdtempSync, chmodSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { TestPostgres, TEST_RUN_FOLDER } = require('@corral/testing');

// The PostgreSQL server the control planes under test use through DATABASE_URL (each its own
// database), and the run's folder, where control planes started without a data directory of their
// own keep theirs: the teardown removes it whole.
module.exports = async function globalSetup() {
  const folder = mkdtempSync(join(tmpdir(), 'corral-test-run-'));
  // The embedded PostgreSQL's own user must be able to traverse it.
  chmodSync(folder, 0o755);
  process.env[TEST_RUN_FOLDER] = folder;
  const postgres = await TestPostgres.start();
  postgres.handOver();
  globalThis.corralTestPostgres = postgres;
};
