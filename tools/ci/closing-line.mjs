// Totals the "Tests: ..." lines of every Jest run in a test log into one closing line,
// "N passed, N failed", the form CI reads. Usage: node tools/ci/closing-line.mjs <log>
import { readFileSync } from 'node:fs';

const log = readFileSync(process.argv[2] ?? '/dev/stdin', 'utf8').replace(/\x1b\[[0-9;]*m/g, '');
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const [, counts] of log.matchAll(/^(?:[\w:-]+: )?Tests:\s+(.*)$/gm)) {
  for (const [, n, kind] of counts.matchAll(/(\d+) (passed|failed|skipped)/g)) totals[kind] += Number(n);
}
if (totals.passed + totals.failed === 0) {
  process.stderr.write('no Jest summary found in the log\n');
  process.exit(1);
}
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
