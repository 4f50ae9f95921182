import WebSocket from 'ws';

/** What `.../vncproxy` answers with `websocket=1`. */
export interface VncProxy {
  readonly ticket: string;
  readonly cert: string;
  readonly port: number;
}

/**
 * Opens `.../vncwebsocket` of the guest at `guestPath` (`/nodes/host1/qemu/120`) on the control
 * plane at `port`, trusting the certificate vncproxy gave, and resolves with the socket and the
 * first 12 bytes the console sent: the RFB version of a real VNC server.
 */
export async function openVncConsole(
  port: number,
  guestPath: string,
  vnc: VncProxy,
  headers: Record<string, string>,
): Promise<{ socket: WebSocket; version: string }> {
  const query = new URLSearchParams({ port: String(vnc.port), vncticket: vnc.ticket });
  const socket = new WebSocket(`wss://127.0.0.1:${port}/api2/json${guestPath}/vncwebsocket?${query.toString()}`, { ca: vnc.cert, headers });
  const version = await new Promise<string>((done, fail) => {
    let received = Buffer.alloc(0);
    socket.on('message', (bytes: Buffer) => {
      received = Buffer.concat([received, bytes]);
      if (received.length >= 12) done(received.subarray(0, 12).toString('latin1'));
    });
    socket.once('unexpected-response', (_request, response) =>
      fail(new Error(`vncwebsocket refused: ${response.statusCode ?? 0} ${response.statusMessage ?? ''}`)),
    );
    socket.once('error', fail);
    socket.once('close', (code, reason) => fail(new Error(`closed before the RFB version: ${code} ${reason.toString()}`)));
  });
  return { socket, version };
}
