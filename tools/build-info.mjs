// Records the version and git commit of a build next to its entry point: node tools/build-info.mjs <out.json>
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const out = process.argv[2];
if (!out) throw new Error('usage: node tools/build-info.mjs <out.json>');
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
let commit = null;
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  // Built outside a git checkout: the version alone identifies it.
}
writeFileSync(out, `${JSON.stringify({ version, commit })}\n`);
