import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { HttpsClient } from './https-client.js';
import { testFolder } from './test-run-folder.js';
import { waitFor } from './wait-for.js';

export interface ControlPlaneOptions {
  /** Reused across restarts to test persistence; a new test folder (`testFolder`) by default. */
  readonly dataDir?: string;
  /**
   * Extra environment, e.g. DATABASE_URL; CORRAL_PORT defaults to 0 (a free port), and
   * CORRAL_CHECK_RESPONSES to 1: a response that does not match its declaration fails the test.
   */
  readonly env?: Readonly<Record<string, string>>;
  readonly startTimeoutMs?: number;
}

/** The built control plane (`apps/control-plane/dist/main.js`) running as a child process. */
export class ControlPlaneProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly dataDir: string,
    readonly port: number,
    readonly fingerprint: string,
    readonly api: HttpsClient,
    private readonly logs: string[],
    readonly exited: Promise<number | null>,
    private readonly options: ControlPlaneOptions,
  ) {}

  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlaneProcess> {
    const entry = resolve('apps/control-plane/dist/main.js');
    if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (npx nx run control-plane:build)`);
    const dataDir = options.dataDir ?? (await testFolder('corral-e2e-'));
    const child = spawn(process.execPath, [entry], {
      env: { PATH: process.env['PATH'] ?? '', CORRAL_PORT: '0', CORRAL_CHECK_RESPONSES: '1', CORRAL_DATA_DIR: dataDir, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const logs: string[] = [];
    const collect = (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let listening: { port: number; fingerprint: string } | undefined;
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the control plane exited with ${child.exitCode}:\n${logs.join('\n')}`);
        listening = logs.map(parseLine).find((line) => typeof line?.['port'] === 'number' && typeof line['fingerprint'] === 'string') as
          { port: number; fingerprint: string } | undefined;
        return listening !== undefined;
      },
      { timeoutMs: options.startTimeoutMs ?? 60_000, what: `the control plane to listen (${dataDir})` },
    );
    const { port, fingerprint } = listening as { port: number; fingerprint: string };
    // The operator's certificate where it is given, else the one it generated.
    const certificate = await readFile(options.env?.['CORRAL_TLS_CERT'] ?? join(dataDir, 'tls/corral.crt'), 'utf8');
    const api = new HttpsClient(`https://127.0.0.1:${port}/api2/json`, certificate);
    return new ControlPlaneProcess(child, dataDir, port, fingerprint, api, logs, exited, { ...options, dataDir });
  }

  /** Stops it (SIGTERM) and starts it again with the same options and data directory: a rolling restart's step. */
  async restart(): Promise<ControlPlaneProcess> {
    await this.stop();
    return ControlPlaneProcess.start(this.options);
  }

  /** Every line it printed so far, parsed where it is JSON. */
  get output(): readonly string[] {
    return this.logs;
  }

  /** Sends the signal and waits for the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.api.close();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

function parseLine(line: string): Record<string, unknown> | null {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}
