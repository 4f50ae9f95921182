import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { waitFor } from './wait-for.js';
import type { ReceivedRequest } from './webhook-receiver.js';

/**
 * A webhook receiver on 127.0.0.1 running as a process of its own (`webhook-receiver-main.ts`,
 * built): unlike WebhookReceiver it can be stopped and started again on the same port, as a
 * receiver that goes down and comes back. It answers 200 to every request and records each one.
 */
export class WebhookReceiverProcess {
  /** Every request it got, in order. */
  readonly requests: ReceivedRequest[] = [];
  private listening: number | null = null;
  private pending = '';
  private stderr = '';
  private readonly closed: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => this.read(chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    child.once('error', (error) => (this.stderr += `cannot run it: ${error.message}\n`));
    this.closed = new Promise((done) => child.once('close', () => done()));
  }

  /** Starts it on `port` (a free one by default) and resolves once it listens. */
  static async start(port = 0, timeoutMs = 30_000): Promise<WebhookReceiverProcess> {
    const entry = resolve('libs/testing/dist/webhook-receiver-main.js');
    if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (npx nx run testing:build)`);
    const receiver = new WebhookReceiverProcess(
      spawn(process.execPath, [entry, String(port)], { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    await waitFor(
      () => {
        if (receiver.child.exitCode !== null)
          throw new Error(`the webhook receiver exited with ${receiver.child.exitCode}: ${receiver.stderr}`);
        return receiver.listening !== null;
      },
      { timeoutMs, what: `the webhook receiver to listen on port ${port}` },
    );
    return receiver;
  }

  get port(): number {
    if (this.listening === null) throw new Error('the webhook receiver does not listen');
    return this.listening;
  }

  /** `http://127.0.0.1:<port><path>` */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Ends the process (SIGTERM: it exits at once, answering nothing more); resolves once its output is read. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.closed;
  }

  private read(text: string): void {
    const lines = (this.pending + text).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) {
      const parsed = JSON.parse(line) as ReceivedRequest | { listening: number };
      if ('listening' in parsed) this.listening = parsed.listening;
      else this.requests.push(parsed);
    }
  }
}
