import { Injectable } from '@nestjs/common';
import { X509Certificate } from 'node:crypto';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { callerName, type Principal } from '../../http/principal.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { ApiError } from '../../errors/api-error.js';
import type { ResultOf } from '../../http/endpoint.js';
import { TaskRunner } from '../../tasks/task-runner.js';
import { QEMU } from '../guest-kinds.js';
import { GuestStatusService } from '../guest-status.service.js';
import { VncSessions } from './vnc-sessions.js';
import type { VNC_ENDPOINTS } from './vnc.endpoints.js';

/** How long the node's agent may take to connect to the display and open the stream. */
const OPEN_MS = 30_000;

/**
 * The VNC console of a VM (docs/guests.md "VNC console"), as PVE's vncproxy and vncwebsocket: the
 * node's agent connects to the display and opens a byte stream to this replica at once, and the
 * client's websocket, which comes with the one-time ticket, is paired with it (VncWebsocket). The
 * `vncproxy` task lasts as long as the console, as PVE's.
 */
@Injectable()
export class VncService {
  constructor(
    private readonly guests: GuestStatusService,
    private readonly hub: AgentHub,
    private readonly runner: TaskRunner,
    private readonly sessions: VncSessions,
  ) {}

  /** Opens a console of the running VM for the caller; `connection` is the request's, whose certificate the answer carries. */
  async proxy(node: string, vmid: number, caller: Principal, connection: Socket): Promise<ResultOf<typeof VNC_ENDPOINTS.proxy>> {
    const { status } = await this.guests.current({ kind: QEMU, node, vmid });
    this.hub.holding(node);
    if (status !== 'running') throw new ApiError('GUEST_STATE', `VM ${vmid} is not running`);
    const user = callerName(caller);
    const { session, ticket, port, stream } = this.sessions.start(node, vmid, user);
    try {
      await this.hub.request(node, 'guest.vnc.open', { vmid, stream }, { timeoutMs: OPEN_MS });
      const upid = await this.runner.start({ node, type: 'vncproxy', id: String(vmid), caller }, (_upid, _log, signal) => {
        signal.addEventListener('abort', () => session.end('the console was stopped'), { once: true });
        return session.ended;
      });
      return { user, ticket, cert: servedCertificate(connection), port, upid };
    } catch (error) {
      session.end('the console could not be opened');
      throw error;
    }
  }

  /** A vncwebsocket request that is no websocket upgrade: the ticket stays unused. */
  withoutUpgrade(): never {
    throw new ApiError(
      'MALFORMED_REQUEST',
      "vncwebsocket is a websocket: send the request with 'Connection: Upgrade' and 'Upgrade: websocket'",
    );
  }
}

/** The certificate (PEM) the request's TLS connection was served with: the one the client is to trust for the websocket, as PVE's `cert`. */
function servedCertificate(connection: Socket): string {
  const served = connection instanceof TLSSocket ? connection.getCertificate() : null;
  return served !== null && 'raw' in served && Buffer.isBuffer(served.raw) ? new X509Certificate(served.raw).toString() : '';
}
