import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AgentHub } from '../../agents/agent-hub.js';
import { LOGGER } from '../../logging/loggers.js';
import { VncSession } from './vnc-session.js';
import { VNC_TICKET_LIFETIME_MS, VncTickets, type VncTarget } from './vnc-tickets.js';

/** A console just opened: its session, its ticket and port for the client, and the stream id its node's agent is to open. */
export interface OpenedConsole {
  readonly session: VncSession;
  readonly ticket: string;
  readonly port: number;
  readonly stream: string;
}

/**
 * The VNC consoles of this replica: each opened by vncproxy, waiting for the agent's stream of the
 * display and for the client's websocket, which finds it by its one-time ticket.
 */
@Injectable()
export class VncSessions implements OnModuleDestroy {
  // A console whose ticket was used up by a wrong presentation can never get its client.
  private readonly tickets = new VncTickets<VncSession>({
    wasted: (session) => session.end('its VNC ticket was presented for another caller, VM or port'),
  });
  private readonly open = new Set<VncSession>();

  constructor(
    private readonly hub: AgentHub,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A new console of VM `vmid` on `node` for `user`; its ticket, the agent's stream and its place here go when it ends. */
  start(node: string, vmid: number, user: string): OpenedConsole {
    const session = new VncSession(vmid, VNC_TICKET_LIFETIME_MS);
    const { ticket, port } = this.tickets.issue({ user, node, vmid }, session);
    const stream = randomUUID();
    const stopWaiting = this.hub.expectStream(node, stream, (socket) => session.attachDisplay(socket));
    this.open.add(session);
    session.onEnd(() => {
      stopWaiting();
      this.tickets.revoke(ticket);
      this.open.delete(session);
    });
    session.ended.then(
      () => this.logger.info({ node, vmid, user }, 'VNC console ended'),
      (error: Error) => this.logger.info({ node, vmid, user, reason: error.message }, 'VNC console ended without a client'),
    );
    return { session, ticket, port, stream };
  }

  /** The console the ticket opens for `target` (the ticket is used up); a 403 when it does not. */
  redeem(ticket: string, target: VncTarget): VncSession {
    return this.tickets.redeem(ticket, target);
  }

  onModuleDestroy(): void {
    for (const session of this.open) session.end('the control plane is shutting down', 1001);
  }
}
