import type { Socket } from 'node:net';
import type { RawData, WebSocket } from 'ws';
import type { GuestDriver } from '../../drivers/guest-driver.js';
import type { Logger } from '../../logging/logger.js';
import type { AreaHandlers } from '../area-handlers.js';

/** Opens the byte stream `stream` to the control plane: `AGENT_STREAMS_PATH/<stream>`, pinned and with the node's credential as the agent's connection. */
export type StreamOpener = (stream: string) => Promise<WebSocket>;

/** A side with more than this queued stops reading the other until it has sent half of it, so that a slow side slows the other down. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/**
 * `guest.vnc.open`: the VM's VNC display, connected through the driver, joined to a byte stream to
 * the control plane, which pairs it with the client's websocket. Answered once both are open; the
 * bytes then pass unchanged both ways (binary messages on the stream) until either side closes,
 * which closes the other. Not through the agent's connection: a console's bytes would hold up its
 * frames.
 */
export function vncCommands(driver: Pick<GuestDriver, 'vnc'>, openStream: StreamOpener, logger: Logger): AreaHandlers<'guest.vnc.open'> {
  return {
    'guest.vnc.open': async ({ vmid, stream }, context) => {
      const display = await driver.vnc(vmid, context);
      let socket: WebSocket;
      try {
        context.signal.throwIfAborted();
        socket = await openStream(stream);
      } catch (error) {
        display.destroy();
        throw new Error(
          `VM ${vmid}: could not open the VNC stream to the control plane: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      join(display, socket);
      logger.info('VNC stream opened', { vmid, stream });
      socket.once('close', (code: number, reason: Buffer) =>
        logger.info('VNC stream closed', { vmid, stream, code, reason: reason.toString() }),
      );
      return null;
    },
  };
}

/** Passes bytes between the display and the stream, each pausing the other while it has too much queued; either closing closes the other. */
function join(display: Socket, socket: WebSocket): void {
  display.on('data', (chunk: Buffer) => {
    socket.send(chunk, { binary: true }, () => {
      if (display.isPaused() && socket.bufferedAmount <= HIGH_WATER_BYTES / 2) display.resume();
    });
    if (socket.bufferedAmount > HIGH_WATER_BYTES) display.pause();
  });
  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (!isBinary) return socket.close(1003, 'VNC data goes in binary messages');
    if (!display.write(asBuffer(data))) socket.pause();
  });
  display.on('drain', () => socket.resume());
  // A display that fails closes; its close ends the stream.
  display.on('error', () => display.destroy());
  display.on('close', () => socket.close(1000, 'the VNC display closed'));
  socket.on('error', () => socket.terminate());
  socket.on('close', () => display.destroy());
}

// With ws's default binaryType (`nodebuffer`) a message is one Buffer; the other forms are for other binaryTypes.
export function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
