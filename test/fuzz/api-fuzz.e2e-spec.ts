import { runFuzz } from '@corral/testing';
import { testDatabaseUrl } from '../support/control-plane.js';

// A fixed seed and a fixed number of requests: the same requests on every run, bounded by count
// rather than time (twenty passes over every endpoint, about a minute here). `node tools/fuzz/fuzz.mjs` runs longer.
const SEED = 20261127;
const REQUESTS = 5000;

describe('the API under fuzzed requests, as root, as a user without ACLs and as an API token', () => {
  it(
    'answers no 5xx, leaks nothing, leaves no guest locked and logs no error',
    async () => {
      const report = await runFuzz({ seed: SEED, requests: REQUESTS, databaseUrl: await testDatabaseUrl() });
      expect(report.faults).toEqual([]);
      expect(report.serverErrors).toBe(0);
      expect(Object.values(report.statuses).reduce((sum, count) => sum + count, 0)).toBe(REQUESTS);
    },
    30 * 60_000,
  );
});
