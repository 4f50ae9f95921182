import { FingerprintMismatch } from '@corral/pinned-tls';
import { CLOSE_CODES, PROTOCOL_VERSION, RUNTIME_CHANGES, type CommandHandlers, type HelloFrame } from '@corral/protocol';
import type { AgentConfig } from './config/agent-config.js';
import { Backoff } from './connection/backoff.js';
import { Connection, type Closed } from './connection/connection.js';
import type { ControlPlanes } from './connection/control-planes.js';
import { dial, UpgradeRefused } from './connection/dial.js';
import { Outbox, type OutgoingFrame } from './connection/outbox.js';
import type { CommandContext } from './drivers/command-context.js';
import type { HaLease } from './ha/ha-lease.js';
import type { Inventory } from './host/inventory.js';
import type { LogFields, Logger } from './logging/logger.js';
import { InventoryReports } from './reports/inventory-reports.js';
import type { RuntimeReports } from './reports/runtime-reports.js';
import { RequestRunner } from './requests/request-runner.js';

export interface AgentTiming {
  /** How long the control plane has to answer `hello` with `welcome`. */
  readonly welcomeTimeoutMs: number;
  /** Reconnection delays: exponential with full jitter between these. */
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  /** How long a stop waits for running commands before aborting them. */
  readonly drainTimeoutMs: number;
  /** How long a stop then waits for the control plane to acknowledge the last answers. */
  readonly ackWaitMs: number;
  /** How long output lines wait to be batched into one `log` frame. */
  readonly logFlushMs: number;
}

export const DEFAULT_TIMING: AgentTiming = {
  welcomeTimeoutMs: 5_000,
  backoffMinMs: 500,
  backoffMaxMs: 30_000,
  drainTimeoutMs: 30_000,
  ackWaitMs: 5_000,
  logFlushMs: 100,
};

export interface AgentOptions {
  readonly config: Pick<AgentConfig, 'fingerprint' | 'node' | 'credential'>;
  /** The control-plane URLs to connect to, in turn (the streams the agent opens go to the current one). */
  readonly controlPlanes: ControlPlanes;
  /** The agent's package version, for `hello.agentVersion`. */
  readonly version: string;
  readonly capabilities: readonly string[];
  readonly handlers: CommandHandlers<CommandContext>;
  readonly inventory: Pick<Inventory, 'read'>;
  /** The guests' run state, reported while a connection is live (absent: no runtime reports). */
  readonly runtime?: Pick<RuntimeReports, 'start' | 'stop'>;
  /** The HA lease (ha/ha-lease.ts), which numbers the heartbeats; absent: unnumbered heartbeats, so the control plane grants none. */
  readonly lease?: Pick<HaLease, 'heartbeat' | 'grant' | 'close'>;
  readonly logger: Logger;
  readonly timing?: Partial<AgentTiming>;
  /** The numbered frames, with what a previous process left unacknowledged (state/outbox-store.ts); absent: a new one, in memory. */
  readonly outbox?: Outbox;
}

/** What to log about one connection attempt that ended, before the next one. */
interface Attempt {
  readonly msg: string;
  readonly fields: LogFields;
}

/**
 * The agent's life: dial the control plane, keep one connection at a time (reconnecting to the next
 * control-plane URL at once, with backoff once all failed; the outbox re-sent after each
 * `welcome`), run requests, report the inventory. `run()`
 * resolves to the process's exit code: 0 after `stop()` drained, 1 when an operator must act (the
 * credential was refused, the control plane does not speak this protocol or names another node).
 */
export class Agent {
  private readonly timing: AgentTiming;
  private readonly outbox: Outbox;
  private readonly backoff: Backoff;
  private readonly runner: RequestRunner;
  private readonly reports: InventoryReports;
  private connection: Connection | undefined;
  private exitCode: number | undefined;
  /** Cuts the current wait short (a backoff pause, a dial) when the agent finishes. */
  private interrupt: (() => void) | undefined;
  private stopping = false;

  constructor(private readonly options: AgentOptions) {
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
    this.outbox = options.outbox ?? new Outbox();
    this.backoff = new Backoff(this.timing.backoffMinMs, this.timing.backoffMaxMs);
    const emit = (frame: OutgoingFrame) => this.emit(frame);
    this.runner = new RequestRunner({ handlers: options.handlers, emit, logger: options.logger, logFlushMs: this.timing.logFlushMs });
    this.reports = new InventoryReports(options.inventory, emit, options.logger);
  }

  /** This run of the agent process (`hello.session`), the outbox's. */
  get session(): string {
    return this.outbox.session;
  }

  async run(): Promise<number> {
    const { logger, config, controlPlanes } = this.options;
    logger.info('agent starting', {
      urls: controlPlanes.all().map((url) => url.origin),
      node: config.node,
      session: this.session,
      version: this.options.version,
      capabilities: this.options.capabilities,
    });
    while (this.exitCode === undefined) {
      const attempt = await this.connectOnce();
      if (this.exitCode !== undefined) break;
      // Another URL at once; after every one failed, the backoff.
      const retryInMs = controlPlanes.next() ? this.backoff.next() : 0;
      logger.warn(attempt.msg, { ...attempt.fields, retryInMs, next: controlPlanes.current.origin });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryInMs);
        this.interrupt = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    logger.info('agent stopped', { exitCode: this.exitCode });
    return this.exitCode;
  }

  /**
   * Drains and stops (SIGTERM, SIGINT): new requests are answered `unavailable`, running commands
   * may finish (for `drainTimeoutMs`, then they are aborted), the answers' acks are awaited briefly,
   * and the connection is closed with 1001. Calling it again changes nothing: a terminal's Ctrl-C
   * may reach the agent twice, directly and forwarded by `corral agent join`.
   */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    const { logger } = this.options;
    logger.info('stopping: new requests are refused, running commands may finish');
    this.runner.drain();
    this.reports.stop();
    this.options.runtime?.stop();
    if (!(await within(this.runner.settled(), this.timing.drainTimeoutMs))) {
      logger.warn(`commands still running after ${this.timing.drainTimeoutMs} ms: aborting them`);
      this.runner.abortAll();
    }
    if (!(await within(this.outbox.whenEmpty(), this.timing.ackWaitMs))) {
      logger.warn('stopping with frames the control plane has not acknowledged', { frames: this.outbox.unacknowledged().length });
    }
    this.finish(0);
  }

  /** One connection from dial to close; what to log about its end (nothing is logged once the agent finished). */
  private async connectOnce(): Promise<Attempt> {
    const { config, controlPlanes } = this.options;
    const url = controlPlanes.current;
    const dialing = dial({ ...config, url });
    const interrupted = new Promise<undefined>((resolve) => (this.interrupt = () => resolve(undefined)));
    let socket;
    try {
      socket = await Promise.race([dialing, interrupted]);
    } catch (error) {
      return this.dialFailed(url, error);
    }
    if (socket === undefined) {
      dialing.then(
        (late) => late.terminate(),
        () => undefined,
      );
      return { msg: 'stopped while connecting', fields: {} };
    }
    const connection = new Connection(socket, {
      hello: this.hello(),
      outbox: this.outbox,
      logger: this.options.logger,
      welcomeTimeoutMs: this.timing.welcomeTimeoutMs,
      onWelcome: (welcome, resent) => {
        this.backoff.reset();
        controlPlanes.welcomed(welcome.replicas);
        if (!this.stopping) {
          this.reports.start(welcome.heartbeatMs);
          this.options.runtime?.start(welcome.heartbeatMs, (frame) => this.emit(frame), {
            changes: welcome.accepts?.includes(RUNTIME_CHANGES) === true,
          });
        }
        this.options.logger.info('connected', {
          url: url.origin,
          node: welcome.node,
          heartbeatMs: welcome.heartbeatMs,
          resent,
          clockSkewMs: Date.parse(welcome.time) - Date.now(),
        });
      },
      onRequest: (request) => this.runner.handle(request),
      onCancel: (id) => this.runner.cancel(id),
      heartbeat: () => this.options.lease?.heartbeat() ?? { type: 'heartbeat' },
      onLease: (lease) => this.options.lease?.grant(lease),
    });
    this.connection = connection;
    if (this.exitCode !== undefined) connection.close(1001, 'agent stopping');
    const closed = await connection.closed;
    this.connection = undefined;
    this.reports.stop();
    this.options.runtime?.stop();
    return this.disconnected(url, closed);
  }

  private hello(): HelloFrame {
    const { config, version, capabilities } = this.options;
    const lastAck = this.outbox.lastAck;
    return {
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      agentVersion: version,
      node: config.node,
      session: this.session,
      capabilities: [...capabilities],
      ...(lastAck === undefined ? {} : { lastAck }),
      // What the control plane may still get an answer to; at most what the frame takes, the newest requests left out.
      requests: [...new Set([...this.runner.runningIds(), ...this.outbox.answered()])].slice(0, 4096),
    };
  }

  private dialFailed(target: URL, error: unknown): Attempt {
    const url = target.origin;
    if (error instanceof UpgradeRefused && (error.status === 401 || error.status === 403)) {
      return this.fail(
        `the control plane refused this node's credential (${error.message}): join the node again with 'corral agent join'`,
        { url },
      );
    }
    if (error instanceof FingerprintMismatch) {
      return {
        msg: "the control plane's certificate is not the pinned one: nothing was sent",
        fields: { url, presented: error.presented, expected: error.expected },
      };
    }
    return { msg: 'cannot connect to the control plane', fields: { url, error } };
  }

  private disconnected(url: URL, closed: Closed): Attempt {
    const fields = { url: url.origin, code: closed.code, reason: closed.reason, by: closed.by };
    if (closed.code === CLOSE_CODES.unsupportedProtocol && closed.by === 'control plane') {
      return this.fail(`the control plane does not speak protocol ${PROTOCOL_VERSION}: upgrade this agent`, fields);
    }
    if (closed.code === CLOSE_CODES.nodeMismatch) {
      return this.fail(
        `the control plane does not accept this agent as node '${this.options.config.node}': join the node again with 'corral agent join'`,
        fields,
      );
    }
    return { msg: 'disconnected', fields };
  }

  /** Every numbered frame goes through the outbox; out at once while a connection is live, else after the next welcome. Returns its `seq`. */
  private emit(frame: OutgoingFrame): number {
    const entry = this.outbox.add(frame);
    if (this.connection?.live) this.connection.send(entry);
    return entry.seq;
  }

  /** Stops for good: an operator must act. */
  private fail(msg: string, fields: LogFields): Attempt {
    this.options.logger.error(msg, fields);
    this.runner.abortAll();
    this.finish(1);
    return { msg, fields };
  }

  private finish(exitCode: number): void {
    if (this.exitCode !== undefined) return;
    this.exitCode = exitCode;
    this.options.lease?.close();
    this.reports.stop();
    this.options.runtime?.stop();
    this.connection?.close(1001, 'agent stopping');
    this.interrupt?.();
  }
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
