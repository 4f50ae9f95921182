import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/** Runs the real ESLint with the workspace config on a snippet placed at `file`: what rule `ruleId` says of it. */
export function lintRule(ruleId: string): (file: string, code: string) => string[] {
  const eslint = resolve('node_modules/eslint/bin/eslint.js');
  return (file, code) => {
    const run = spawnSync(process.execPath, [eslint, '--stdin', '--stdin-filename', file, '--format', 'json'], {
      input: code,
      encoding: 'utf8',
    });
    const [report] = JSON.parse(run.stdout) as [{ messages: { ruleId: string; message: string }[] }];
    return report.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message);
  };
}
