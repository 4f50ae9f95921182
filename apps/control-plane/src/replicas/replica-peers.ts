import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { connectPinned } from '@corral/pinned-tls';
import { Agent, request, type RequestOptions } from 'node:https';
import type { ClientRequest, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { CONFIG, type Config } from '../config/config.js';
import { TLS_FINGERPRINT } from '../tls/certificate.js';
import { FORWARDED_HEADER, signForwarding } from './forward-signature.js';
import { ReplicaIdentity } from './replica-identity.js';

/** How long connecting to another replica may take. */
const CONNECT_MS = 5000;

/**
 * Connections to the other replicas: HTTPS kept alive, each peer trusted only when it presents the
 * certificate this replica serves (every replica of a cluster serves the same one, which the agents
 * pinned), and every request signed with the cluster's secret (`forward-signature.ts`) so the peer
 * knows a replica sent it. Without CORRAL_CLUSTER_SECRET, nothing is sent to a peer.
 */
@Injectable()
export class ReplicaPeers implements OnModuleDestroy {
  private readonly secret: string | null;
  private readonly agent: Agent;

  constructor(
    private readonly identity: ReplicaIdentity,
    @Inject(TLS_FINGERPRINT) fingerprint: string,
    @Inject(CONFIG) config: Config,
  ) {
    this.secret = config.clusterSecret;
    this.agent = new PinnedAgent(fingerprint);
  }

  /** Whether requests can be sent to peers: the cluster's secret is set. */
  get enabled(): boolean {
    return this.secret !== null;
  }

  /**
   * A request to the replica at `address` for `url` (path and query) on behalf of the client at
   * `client`; the caller writes its body and reads its answer.
   */
  request(address: string, method: string, url: string, headers: OutgoingHttpHeaders, client: string): ClientRequest {
    if (this.secret === null) throw new Error('CORRAL_CLUSTER_SECRET is not set: nothing is sent to other replicas');
    const target = new URL(url, address);
    const options: RequestOptions = {
      agent: this.agent,
      method,
      hostname: target.hostname,
      port: target.port,
      path: `${target.pathname}${target.search}`,
      headers: {
        ...headers,
        [FORWARDED_HEADER]: signForwarding(this.secret, { replica: this.identity.id, client }, { method, url }),
      },
    };
    return request(options);
  }

  onModuleDestroy(): void {
    this.agent.destroy();
  }
}

/** Keep-alive connections that are used only once the peer presented the pinned certificate. */
class PinnedAgent extends Agent {
  constructor(private readonly fingerprint: string) {
    super({ keepAlive: true });
  }

  override createConnection(options: RequestOptions, callback?: (error: Error | null, socket: Duplex) => void): undefined {
    const host = options.hostname ?? options.host ?? 'localhost';
    const url = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${options.port ?? 443}`);
    connectPinned(url, this.fingerprint, { timeoutMs: CONNECT_MS }).then(
      (socket) => callback?.(null, socket),
      (error: Error) => callback?.(error, undefined as unknown as Duplex),
    );
    return undefined;
  }
}
