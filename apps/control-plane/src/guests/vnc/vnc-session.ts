import type { RawData, WebSocket } from 'ws';

/** What the display may send before the client comes: an RFB server says its 12-byte version, then waits for the client's. */
const EARLY_BYTES = 64 * 1024;
/** A side with more than this queued stops reading the other until it has sent half of it: a slow client slows the display down instead of filling memory. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/**
 * One VNC console (vncproxy): the byte stream the node's agent opened to the VM's display, paired
 * with the client's websocket once it comes with the ticket. The display's bytes (RFB) pass both
 * ways unchanged, as binary messages; when either side closes, the other is closed and the console
 * ends. A console whose client does not come within `waitMs` ends too.
 *
 * Close reasons are fixed short texts (a websocket close reason holds at most 123 bytes).
 */
export class VncSession {
  /** Settles when the console ends: fulfilled when a client had come, else rejected with why it ended without one. */
  readonly ended: Promise<void>;
  private display: WebSocket | null = null;
  private client: WebSocket | null = null;
  private early: Buffer[] = [];
  private earlyBytes = 0;
  private over = false;
  private settle: (why?: Error) => void = () => undefined;
  private readonly cleanups: (() => void)[] = [];
  private readonly waiting: NodeJS.Timeout;

  constructor(
    readonly vmid: number,
    waitMs: number,
  ) {
    this.ended = new Promise<void>((resolve, reject) => {
      this.settle = (why) => (why ? reject(why) : resolve());
    });
    // Its end is its task's; a console without a task yet must not fail the process with an unhandled rejection.
    this.ended.catch(() => undefined);
    this.waiting = setTimeout(() => this.end(`no VNC client connected within ${Math.round(waitMs / 1000)} s`), waitMs);
    this.waiting.unref();
  }

  /** Runs `cleanup` once the console has ended. */
  onEnd(cleanup: () => void): void {
    if (this.over) cleanup();
    else this.cleanups.push(cleanup);
  }

  /** The node agent's stream of the VM's display. */
  attachDisplay(socket: WebSocket): void {
    if (this.over || this.display) return socket.close(1000, 'the console has ended');
    this.display = socket;
    socket.on('message', (data, isBinary) => this.fromDisplay(socket, data, isBinary));
    socket.on('close', () => this.end(`the VNC display of VM ${this.vmid} closed`));
    socket.on('error', () => socket.terminate());
  }

  /** The client's websocket, its ticket redeemed: it gets what the display has said so far, then everything. */
  attachClient(socket: WebSocket): void {
    if (this.over || this.client) return socket.close(1011, 'the console has ended');
    clearTimeout(this.waiting);
    this.client = socket;
    for (const chunk of this.early) socket.send(chunk, { binary: true });
    this.early = [];
    socket.on('message', (data, isBinary) => {
      if (!isBinary) return this.end('VNC data goes in binary messages', 1003);
      if (this.display) forward(socket, this.display, data);
    });
    socket.on('close', () => this.end('the VNC client closed'));
    socket.on('error', () => socket.terminate());
  }

  /** Ends the console: both sides are closed with `why`, which is also the error `ended` rejects with when no client had come. */
  end(why: string, code = 1000): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.waiting);
    this.display?.close(code, why);
    this.client?.close(code, why);
    this.settle(this.client ? undefined : new Error(why));
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }

  private fromDisplay(socket: WebSocket, data: RawData, isBinary: boolean): void {
    if (!isBinary) return this.end('VNC data goes in binary messages', 1003);
    if (this.client) return forward(socket, this.client, data);
    const chunk = asBuffer(data);
    this.earlyBytes += chunk.length;
    if (this.earlyBytes > EARLY_BYTES) return this.end(`the VNC display of VM ${this.vmid} said too much before a client came`, 1011);
    this.early.push(chunk);
  }
}

/** Sends on `to`, pausing `from` while `to` has too much queued. */
function forward(from: WebSocket, to: WebSocket, data: RawData): void {
  to.send(asBuffer(data), { binary: true }, () => {
    if (from.isPaused && to.bufferedAmount <= HIGH_WATER_BYTES / 2) from.resume();
  });
  if (to.bufferedAmount > HIGH_WATER_BYTES) from.pause();
}

// With ws's default binaryType (`nodebuffer`) a message is one Buffer; the other forms are for other binaryTypes.
function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
