import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { VncSession } from './vnc-session.js';

/** A websocket's side as the session uses it: what it was sent, and how it was closed. */
class FakeSocket extends EventEmitter {
  readonly sent: string[] = [];
  closed: { code: number; reason: string } | null = null;
  bufferedAmount = 0;
  isPaused = false;

  send(data: Buffer, _options: unknown, done?: () => void): void {
    this.sent.push(data.toString('latin1'));
    done?.();
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = { code, reason };
    this.emit('close', code, Buffer.from(reason));
  }

  /** A binary message from the far side. */
  say(text: string): void {
    this.emit('message', Buffer.from(text, 'latin1'), true);
  }

  pause(): void {
    this.isPaused = true;
  }

  resume(): void {
    this.isPaused = false;
  }

  terminate(): void {
    this.close(1006, '');
  }

  get socket(): WebSocket {
    return this as unknown as WebSocket;
  }
}

const WAIT_MS = 40_000;

/** Whether `ended` settled, and how. */
async function outcome(session: VncSession): Promise<string> {
  return Promise.race([
    session.ended.then(
      () => 'ended',
      (error: Error) => `failed: ${error.message}`,
    ),
    new Promise<string>((resolve) => setImmediate(() => resolve('open'))),
  ]);
}

describe('a VNC console', () => {
  afterEach(() => jest.useRealTimers());

  it("hands the client what the display said before it came, then passes each side's messages to the other", async () => {
    const session = new VncSession(100, WAIT_MS);
    const display = new FakeSocket();
    const client = new FakeSocket();
    session.attachDisplay(display.socket);
    display.say('RFB 003.008\n');
    session.attachClient(client.socket);
    expect(client.sent).toEqual(['RFB 003.008\n']);
    client.say('RFB 003.008\n');
    display.say('\x01\x01');
    expect(display.sent).toEqual(['RFB 003.008\n']);
    expect(client.sent).toEqual(['RFB 003.008\n', '\x01\x01']);
    expect(await outcome(session)).toBe('open');
  });

  it('ends when the client closes, closing the display; its task ends well', async () => {
    const session = new VncSession(100, WAIT_MS);
    const display = new FakeSocket();
    const client = new FakeSocket();
    session.attachDisplay(display.socket);
    session.attachClient(client.socket);
    client.close(1000, 'bye');
    expect(display.closed).toEqual({ code: 1000, reason: 'the VNC client closed' });
    expect(await outcome(session)).toBe('ended');
  });

  it('ends when the display closes, closing the client with the reason; without a client, its task fails saying so', async () => {
    const paired = new VncSession(100, WAIT_MS);
    const client = new FakeSocket();
    const display = new FakeSocket();
    paired.attachDisplay(display.socket);
    paired.attachClient(client.socket);
    display.close(1000, 'the VNC display closed');
    expect(client.closed).toEqual({ code: 1000, reason: 'the VNC display of VM 100 closed' });
    expect(await outcome(paired)).toBe('ended');

    const alone = new VncSession(101, WAIT_MS);
    alone.attachDisplay(new FakeSocket().socket);
    alone.end('the VNC display of VM 101 closed');
    expect(await outcome(alone)).toBe('failed: the VNC display of VM 101 closed');
  });

  it('ends when no client comes in time, closing the display, and turns a late client away', async () => {
    jest.useFakeTimers();
    const session = new VncSession(100, WAIT_MS);
    const display = new FakeSocket();
    session.attachDisplay(display.socket);
    jest.advanceTimersByTime(WAIT_MS - 1);
    expect(display.closed).toBeNull();
    jest.advanceTimersByTime(1);
    expect(display.closed).toEqual({ code: 1000, reason: 'no VNC client connected within 40 s' });
    jest.useRealTimers();
    expect(await outcome(session)).toBe('failed: no VNC client connected within 40 s');
    const late = new FakeSocket();
    session.attachClient(late.socket);
    expect(late.closed).toEqual({ code: 1011, reason: 'the console has ended' });
  });

  it('closes both sides with 1003 on a text message: RFB is binary', () => {
    const session = new VncSession(100, WAIT_MS);
    const display = new FakeSocket();
    const client = new FakeSocket();
    session.attachDisplay(display.socket);
    session.attachClient(client.socket);
    client.emit('message', Buffer.from('hello'), false);
    expect(display.closed).toEqual({ code: 1003, reason: 'VNC data goes in binary messages' });
    expect(client.closed).toEqual({ code: 1003, reason: 'VNC data goes in binary messages' });
  });

  it('pauses the side that sends while the other has too much queued, and resumes it once sent', () => {
    const session = new VncSession(100, WAIT_MS);
    const display = new FakeSocket();
    const client = new FakeSocket();
    session.attachDisplay(display.socket);
    session.attachClient(client.socket);
    const queued: (() => void)[] = [];
    client.bufferedAmount = 5 * 1024 * 1024;
    client.send = (data: Buffer, _options: unknown, done?: () => void) => {
      client.sent.push(data.toString('latin1'));
      queued.push(() => done?.());
    };
    display.say('frame');
    expect(client.sent).toEqual(['frame']);
    expect(display.isPaused).toBe(true);
    client.bufferedAmount = 0;
    for (const done of queued) done();
    expect(display.isPaused).toBe(false);
  });

  it('runs its cleanups once when it ends, and at once when it has', () => {
    const session = new VncSession(100, WAIT_MS);
    const ran: string[] = [];
    session.onEnd(() => ran.push('first'));
    session.end('the console was stopped');
    session.end('again');
    session.onEnd(() => ran.push('late'));
    expect(ran).toEqual(['first', 'late']);
  });
});
