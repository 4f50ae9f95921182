import { Injectable } from '@nestjs/common';
import type { CommandName, LogLine, ParamsOf, ResultOf } from '@corral/protocol';
import { createInterface } from 'node:readline';
import { ApiError } from '../errors/api-error.js';
import { ERROR_STATUS, type ErrorCode } from '../errors/error-status.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { ReplicaDirectory } from '../replicas/replica-directory.js';
import { ReplicaPeers } from '../replicas/replica-peers.js';
import type { RequestOptions } from './pending-requests.js';

/** Where a replica takes the agent commands another replica relays to the agents it holds (not under the API's prefix: never forwarded). */
export const AGENT_RELAY_PATH = '/internal/v1/agent-requests';

/** A relayed command: the body of a POST to AGENT_RELAY_PATH. */
export interface RelayedRequest {
  readonly node: string;
  readonly command: CommandName;
  readonly params: unknown;
  readonly timeoutMs: number;
  readonly upid?: string;
  readonly step?: string;
}

/** One line of the answer (newline-delimited JSON): output lines as they come, then the result or the failure. */
export type RelayLine =
  | { readonly log: readonly LogLine[] }
  | { readonly result: unknown }
  | { readonly failure: { readonly code: string; readonly message: string } };

/** A node's agent held by another replica, as AgentHub serves it: commands relayed there, and the address that replica sees it at. */
export interface RemoteAgent {
  readonly address: string;
  request<K extends CommandName>(command: K, params: ParamsOf<K>, options: RequestOptions): Promise<ResultOf<K>>;
}

/**
 * The agents other replicas hold (docs/scale-out.md): a command for one is sent to its replica,
 * which runs it on the agent as its own and streams back the output lines and the answer. Stopping
 * the request (its task was stopped) closes the relay, and the holder cancels the command.
 */
@Injectable()
export class RemoteAgents {
  constructor(
    private readonly directory: ReplicaDirectory,
    private readonly peers: ReplicaPeers,
    private readonly nodes: NodeView,
  ) {}

  /** The node's agent when another replica holds it and commands can be relayed there; else null. */
  of(node: string): RemoteAgent | null {
    if (!this.peers.enabled) return null;
    const replica = this.directory.holderElsewhere(node);
    if (replica === null) return null;
    return {
      address: this.nodes.get(node)?.address ?? '',
      request: (command, params, options) => this.relay(replica, { node, command, params, options }) as Promise<ResultOf<typeof command>>,
    };
  }

  private async relay(
    replica: string,
    { node, command, params, options }: { node: string; command: CommandName; params: unknown; options: RequestOptions },
  ): Promise<unknown> {
    const address = await this.directory.address(replica);
    const gone = (why: string) => new ApiError('NODE_UNAVAILABLE', `node '${node}' is connected to another control-plane replica, ${why}`);
    if (address === null) throw gone('which is gone');
    const { signal } = options;
    signal?.throwIfAborted();
    const body: RelayedRequest = {
      node,
      command,
      params,
      timeoutMs: options.timeoutMs,
      ...(options.upid ? { upid: options.upid } : {}),
      ...(options.step ? { step: options.step } : {}),
    };
    return new Promise<unknown>((resolve, reject) => {
      const request = this.peers.request(address, 'POST', AGENT_RELAY_PATH, { 'content-type': 'application/json' }, 'replica');
      const abort = () =>
        request.destroy(signal?.reason instanceof Error ? signal.reason : new ApiError('INTERNAL', `${command} was cancelled`));
      signal?.addEventListener('abort', abort, { once: true });
      let settled = false;
      const settle = (outcome: { result: unknown } | Error) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', abort);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome.result);
      };
      request.on('error', (error) => settle(signal?.aborted ? error : gone(`which cannot be reached (${error.message})`)));
      request.on('response', (answer) => {
        if (answer.statusCode !== 200) {
          answer.resume();
          return settle(gone(`which refused the command: ${answer.statusCode ?? 0} ${answer.statusMessage ?? ''}`));
        }
        const lines = createInterface({ input: answer, crlfDelay: Infinity });
        lines.on('line', (text) => {
          let line: RelayLine;
          try {
            line = JSON.parse(text) as RelayLine;
          } catch {
            return settle(gone(`which answered ${command} with a malformed line`));
          }
          if ('log' in line) options.onLog?.(line.log);
          else if ('result' in line) settle({ result: line.result });
          else settle(new ApiError(errorCode(line.failure.code), line.failure.message));
        });
        lines.on('close', () => settle(gone(`which went away before ${command} ended`)));
      });
      request.end(JSON.stringify(body));
    });
  }
}

/** The error code a relayed failure names, if it is one. */
function errorCode(code: string): ErrorCode {
  return code in ERROR_STATUS ? (code as ErrorCode) : 'INTERNAL';
}
