import type { INestApplicationContext } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { JoinService } from '../cluster/join/join.service.js';
import { JoinTokensService } from '../cluster/join-tokens/join-tokens.service.js';
import { NodeView } from '../inventory/nodes/node-view.js';

const RESTART_MS = 2000;
const STOP_MS = 10_000;

export interface LocalAgent {
  stop(): Promise<void>;
}

interface AgentConfig {
  readonly url: string;
  readonly fingerprint: string;
  readonly node: string;
  readonly credential: string;
  readonly hostRoot: string;
  readonly stateDir: string;
}

/**
 * The agent of the control plane's own host (a fresh start is a one-node
 * cluster). Joined the way every agent is, with a join token this process makes for itself, the
 * first time or when its config in `<data dir>/agent/agent.json` no longer fits; then run as a
 * child process, restarted when it dies, stopped with the control plane.
 */
export async function startLocalAgent(
  app: INestApplicationContext,
  options: { node: string; dataDir: string; port: number; fingerprint: string; logger: Logger },
): Promise<LocalAgent> {
  const { node, logger } = options;
  const file = join(options.dataDir, 'agent', 'agent.json');
  const url = `https://127.0.0.1:${options.port}`;
  // Its own state beside its config: several control planes on one host (tests, benchmarks) each have their own.
  const stateDir = join(options.dataDir, 'agent');
  const existing = await readConfig(file);
  const known = app.get(NodeView).get(node);
  if (!existing || existing.node !== node || existing.fingerprint !== options.fingerprint || !known) {
    // Re-joining this host's own node needs no one's consent but this start's: it is the host.
    const { token } = await app
      .get(JoinTokensService)
      .create({ ttl: 60, node, replace: known !== undefined, comment: 'the local agent' }, 'root@pam');
    const { credential } = await app.get(JoinService).join(token, node);
    await writeConfig(file, { url, fingerprint: options.fingerprint, node, credential, hostRoot: '/', stateDir });
    logger.info({ node }, `joined this host as node '${node}'`);
  } else if (existing.url !== url || existing.stateDir !== stateDir) {
    await writeConfig(file, { ...existing, url, stateDir });
  }

  const main = fileURLToPath(import.meta.resolve('@corral/agent/main'));
  let child: ChildProcess | null = null;
  let stopping = false;
  const run = () => {
    const started = spawn(process.execPath, [main, '--config', file], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, CORRAL_AGENT_STOP_WITH_PARENT: '1' },
    });
    child = started;
    started.once('exit', (code, signal) => {
      child = null;
      if (stopping) return;
      logger.error({ node, code, signal }, `the local agent exited; restarting it in ${RESTART_MS / 1000} s`);
      setTimeout(() => stopping || run(), RESTART_MS).unref();
    });
  };
  run();
  logger.info({ node, config: file }, `started the local agent of node '${node}'`);

  return {
    stop: async () => {
      stopping = true;
      const running: ChildProcess | null = child;
      if (!running) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), STOP_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function readConfig(file: string): Promise<AgentConfig | null> {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(await readFile(file, 'utf8')) as AgentConfig;
  } catch {
    return null;
  }
}

/** Written whole or not at all, readable by root alone: it holds the node's credential. */
async function writeConfig(file: string, config: AgentConfig): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}
