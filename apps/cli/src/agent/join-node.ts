import type { LocalContext } from '../command-line/command.js';
import { ApiClient } from '../http/api-client.js';
import { ApiFailure } from '../http/api-failure.js';
import { AtomicFile } from './atomic-file.js';
import { runAgent } from './run-agent.js';

/** `corral agent join`, its arguments checked. */
export interface JoinRequest {
  readonly url: URL;
  readonly token: string;
  /** The control plane's certificate fingerprint, `AB:CD:...`. */
  readonly fingerprint: string;
  readonly node: string;
  /** Absolute. */
  readonly configPath: string;
  /** Absolute; left out of the config when not given (the agent's default is /). */
  readonly hostRoot: string | undefined;
  /** Run the agent in the foreground after joining. */
  readonly start: boolean;
}

/**
 * Joins this host: trades the token for the node's credential (`POST /cluster/join`, over a
 * connection pinned to `fingerprint`), writes the agent's config (mode 0600) and, unless told not
 * to, runs the agent until it stops.
 */
export async function joinNode(request: JoinRequest, context: LocalContext): Promise<number> {
  const { output } = context;
  // Before the token is spent: a config that cannot be written would waste it.
  const file = await AtomicFile.create(request.configPath, 0o600, 0o700);
  try {
    const { credential, urls } = await trade(request);
    // The URL joined through first, then the replicas the control plane named: the agent tries them in this order.
    const all = [...new Set([request.url.origin, ...urls])];
    const config = {
      url: all.length === 1 ? request.url.origin : all,
      fingerprint: request.fingerprint,
      node: request.node,
      credential,
      ...(request.hostRoot === undefined ? {} : { hostRoot: request.hostRoot }),
    };
    await file.commit(`${JSON.stringify(config, null, 2)}\n`);
  } catch (error) {
    await file.discard();
    throw error;
  }
  output.out(`${JSON.stringify({ node: request.node, url: request.url.origin, config: request.configPath }, null, 2)}\n`);
  output.err(
    `corral: joined ${request.url.origin} as node '${request.node}'; the agent's config and credential are in ${request.configPath} (mode 0600)\n`,
  );
  if (!request.start) {
    output.err(`corral: run the agent with 'corral agent install' (a systemd service) or 'corral-agent --config ${request.configPath}'\n`);
    return 0;
  }
  output.err("corral: running the agent in the foreground; Ctrl-C stops it ('corral agent install' makes it a systemd service)\n");
  return runAgent(context.agentMain(), request.configPath);
}

async function trade(request: JoinRequest): Promise<{ credential: string; urls: string[] }> {
  const client = new ApiClient(request.url, { fingerprint: request.fingerprint, source: '--fingerprint' });
  const data = await client.send(
    { method: 'POST', path: '/cluster/join', params: { token: request.token, node: request.node }, body: 'json' },
    {},
  );
  const { node, credential, urls } = (data ?? {}) as { node?: unknown; credential?: unknown; urls?: unknown };
  if (typeof credential !== 'string' || credential === '') throw new ApiFailure(200, ['joining: the answer has no credential']);
  if (node !== request.node) throw new ApiFailure(200, [`joining: the control plane joined node '${String(node)}', not '${request.node}'`]);
  // Each an https:// origin, as the agent's config takes them; anything else is left out.
  const replicas = Array.isArray(urls) ? urls.filter((url): url is string => typeof url === 'string' && isHttpsUrl(url)) : [];
  return { credential, urls: replicas.map((url) => new URL(url).origin) };
}

function isHttpsUrl(text: string): boolean {
  return URL.canParse(text) && new URL(text).protocol === 'https:';
}
