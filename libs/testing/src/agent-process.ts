import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { waitFor } from './wait-for.js';

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A built Corral program as a child process that runs until it is stopped: the agent
 * (`apps/agent/dist/main.js`) or the CLI (`apps/cli/dist/main.js`), whose `corral agent join` runs the
 * agent as a child of its own. Each runs in a process group of its own, so that `kill()` ends the
 * agent too, as a host crash would, and no agent outlives a failed test.
 */
export class AgentProcess {
  private stdoutText = '';
  private stderrText = '';
  private exit: ProcessExit | null = null;
  /** Resolves once the process exited and its output ended. */
  readonly exited: Promise<ProcessExit>;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.stdoutText += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString('utf8')));
    // Shown with the output, rather than an unhandled 'error' event ending the test run.
    child.once('error', (error) => (this.stderrText += `cannot run it: ${error.message}\n`));
    // 'close', not 'exit': the output is complete by then.
    this.exited = new Promise((done) =>
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        done(this.exit);
      }),
    );
  }

  /** `corral-agent --config PATH` */
  static agent(configPath: string, env: Readonly<Record<string, string>> = {}): AgentProcess {
    return AgentProcess.run('apps/agent/dist/main.js', ['--config', configPath], env);
  }

  /** `corral <args>`, e.g. `agent join <url> --token T ...`; with only PATH and `env` in its environment. */
  static cli(args: readonly string[], env: Readonly<Record<string, string>> = {}): AgentProcess {
    return AgentProcess.run('apps/cli/dist/main.js', args, env);
  }

  private static run(main: string, args: readonly string[], env: Readonly<Record<string, string>>): AgentProcess {
    const entry = resolve(main);
    if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (npx nx run-many -t build -p agent cli)`);
    const child = spawn(process.execPath, [entry, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    return new AgentProcess(child);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('the process did not start');
    return this.child.pid;
  }

  get stdout(): string {
    return this.stdoutText;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** How it ended, or null while it runs. */
  get exitStatus(): ProcessExit | null {
    return this.exit;
  }

  /** The JSON lines it wrote on stderr (the agent's log), parsed; other lines are left out. */
  get logLines(): Record<string, unknown>[] {
    return this.stderrText.split('\n').flatMap((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
  }

  /** Sends `signal` to the process itself (not its group): `corral agent join` must pass it on. */
  signal(signal: NodeJS.Signals): void {
    if (this.exit === null) this.child.kill(signal);
  }

  /** Resolves with how it ended, or rejects when it still runs after `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<ProcessExit> {
    try {
      await waitFor(() => this.exit !== null, { timeoutMs, what: `process ${this.pid} to exit` });
    } catch (error) {
      throw new Error(`${(error as Error).message}; its output so far:\n${this.stdoutText}${this.stderrText}`);
    }
    return this.exited;
  }

  /** SIGKILL to the whole process group (the agent that `corral agent join` started too); resolves once the process is gone. */
  async kill(): Promise<ProcessExit> {
    // Once the process exited its group is empty (`corral agent join` waits for its agent): its id may belong to another by now.
    if (this.exit !== null) return this.exit;
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch (error) {
      // ESRCH: every process of the group is gone already.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    return this.exited;
  }
}
