#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { LocalFailure } from './command-line/local-failure.js';
import { run } from './run.js';

/** The agent's entry point, found as Node finds packages; resolved here, the one module Jest never loads (import.meta is ESM's). */
function agentMain(): string {
  try {
    return fileURLToPath(import.meta.resolve('@corral/agent/main'));
  } catch (error) {
    throw new LocalFailure(`the agent (@corral/agent) is not installed beside corral: ${(error as Error).message}`);
  }
}

process.exitCode = await run(
  process.argv.slice(2),
  process.env,
  {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  },
  agentMain,
);
