import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { refuseUpgrade, type Upgrade } from '../http/websocket-upgrades.js';
import { LOGGER } from '../logging/loggers.js';
import { AgentUpgrades } from './agent-upgrades.js';

/** A byte stream asked of a node's agent and not opened yet. */
interface AwaitedStream {
  readonly node: string;
  readonly accept: (socket: WebSocket) => void;
}

/**
 * The byte streams agents open beside their connection when asked (`/agent/v1/streams/<id>`),
 * by stream id, from the ask until the agent's websocket arrives.
 */
@Injectable()
export class AgentStreams {
  private readonly awaited = new Map<string, AwaitedStream>();

  constructor(
    private readonly upgrades: AgentUpgrades,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Awaits the byte stream `id` that the node's agent was asked to open (`guest.vnc.open`): once its
   * websocket is upgraded, with the node's credential, it goes to `accept`. Returns what stops the
   * wait; a stream nobody awaits (or awaits from another node) is refused with 404.
   */
  expect(node: string, id: string, accept: (socket: WebSocket) => void): () => void {
    const expected = { node, accept };
    this.awaited.set(id, expected);
    return () => {
      if (this.awaited.get(id) === expected) this.awaited.delete(id);
    };
  }

  /** An agent's upgrade of `/agent/v1/streams/<id>`, the id the path's first group. */
  async open(upgrade: Upgrade): Promise<void> {
    const node = await this.upgrades.authenticate(upgrade);
    if (node === null) return;
    const id = upgrade.match[1] ?? '';
    const expected = this.awaited.get(id);
    if (expected?.node !== node) {
      this.logger.warn({ node, stream: id }, 'agent stream refused: not awaited from this node (asked by another replica, or given up)');
      return refuseUpgrade(upgrade.socket, 404, 'Not Found');
    }
    this.awaited.delete(id);
    this.upgrades.accept(upgrade, (socket) => expected.accept(socket));
  }
}
