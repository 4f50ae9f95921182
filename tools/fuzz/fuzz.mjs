// The long fuzz run (docs/reliability.md, "Fuzzer"): `node tools/fuzz/fuzz.mjs [--seed N] [--requests N]`
// against the built control plane, on a new database of its own on DATABASE_URL's server (dropped
// after the run) or else its embedded PostgreSQL. Prints a summary (requests, status counts, 5xx)
// and every fault; exits 1 when there is any.
import { createDatabase, databaseUrl, dropDatabase, runFuzz } from '@corral/testing';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, requests: { type: 'string', default: '20000' } } });
const seed = Number(values.seed);
const requests = Number(values.requests);
if (!Number.isInteger(seed) || !Number.isInteger(requests) || requests < 1) {
  process.stderr.write('usage: node tools/fuzz/fuzz.mjs [--seed <integer>] [--requests <count>]\n');
  process.exit(2);
}

const started = Date.now();
const admin = process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : undefined;
const database = admin && (await createDatabase(admin));
const report = await runFuzz({
  seed,
  requests,
  ...(admin && database ? { databaseUrl: databaseUrl(admin, database) } : {}),
  progress: (sent) => {
    if (sent % 1000 === 0) process.stderr.write(`${sent} requests sent\n`);
  },
}).finally(() => admin && database && dropDatabase(admin, database));
const lines = [
  `seed ${report.seed}: ${report.requests} requests over ${report.operations} operations in ${Math.round((Date.now() - started) / 1000)} s`,
  `statuses: ${Object.entries(report.statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ')}`,
  `5xx: ${report.serverErrors} (besides the accepted ones), faults: ${report.faults.length}`,
  ...report.faults.map((fault) => `FAULT ${fault}`),
];
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(report.faults.length > 0 ? 1 : 0);
