import { parseFingerprint } from '@corral/pinned-tls';
import { NODE_NAME_HINT, NODE_NAME_PATTERN } from '@corral/protocol';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { installAgentUnit } from '../agent/agent-unit.js';
import { joinNode } from '../agent/join-node.js';
import { defineLocalCommand } from '../command-line/command.js';
import { httpsUrl, requiredOption } from '../command-line/option-values.js';
import { UsageError } from '../command-line/usage-error.js';

/** Where the agent looks for its config by default (corral-agent's --config). */
export const DEFAULT_AGENT_CONFIG = '/etc/corral/agent.json';
const DEFAULT_UNIT_DIR = '/etc/systemd/system';

const CONFIG_OPTION = { value: 'PATH', description: `the agent's config file (default ${DEFAULT_AGENT_CONFIG})` };

/** The node name: --node, else this host's name up to the first dot. */
function nodeName(given: string | undefined): string {
  const name = given ?? hostname().split('.')[0] ?? '';
  if (NODE_NAME_PATTERN.test(name)) return name;
  throw new UsageError(
    given === undefined ? `this host's name '${name}' is no node name: give one with --node` : `--node ${NODE_NAME_HINT}`,
  );
}

const joinAgent = defineLocalCommand({
  name: 'agent join',
  summary:
    "Join this host to the cluster at <url> as a node: trade a join token for the node's credential, write the agent's config and run the agent",
  positionals: ['url'],
  options: {
    token: { value: 'TOKEN', description: "required: a join token from 'corral cluster join-token create'" },
    fingerprint: {
      value: 'AA:BB:...',
      description: "required: the SHA-256 fingerprint of the control plane's certificate, as join-token create shows it",
    },
    node: { value: 'NAME', description: "the node's name (default: this host's name up to the first dot)" },
    config: CONFIG_OPTION,
    'host-root': { value: 'DIR', description: 'the directory under which the agent reads and writes host files (default /)' },
    'no-start': { value: '', description: 'join and write the config, but do not run the agent' },
  },
  task: (args) => {
    const fingerprint = parseFingerprint(requiredOption('fingerprint', args.fingerprint));
    if (fingerprint === undefined) throw new UsageError('--fingerprint must be a SHA-256 fingerprint: 32 hex bytes, AA:BB:...');
    const request = {
      url: httpsUrl('<url>', args.url),
      token: requiredOption('token', args.token),
      fingerprint,
      node: nodeName(args.node),
      configPath: resolve(args.config ?? DEFAULT_AGENT_CONFIG),
      hostRoot: args['host-root'] === undefined ? undefined : resolve(args['host-root']),
      start: args['no-start'] === undefined,
    };
    return (context) => joinNode(request, context);
  },
});

const installAgent = defineLocalCommand({
  name: 'agent install',
  summary: `Install the agent of a joined host as the systemd service corral-agent (writes ${DEFAULT_UNIT_DIR}/corral-agent.service)`,
  positionals: [],
  options: {
    config: CONFIG_OPTION,
    'unit-dir': { value: 'DIR', description: `where to write the unit (default ${DEFAULT_UNIT_DIR})` },
  },
  task: (args) => {
    const configPath = resolve(args.config ?? DEFAULT_AGENT_CONFIG);
    const unitDir = resolve(args['unit-dir'] ?? DEFAULT_UNIT_DIR);
    return (context) => installAgentUnit(configPath, unitDir, context);
  },
});

export const AGENT_COMMANDS = [joinAgent, installAgent];
