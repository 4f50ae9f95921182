import { parseArgs } from 'node:util';

export const DEFAULT_CONFIG_PATH = '/etc/corral/agent.json';

export const AGENT_USAGE = `Usage: corral-agent [--config PATH]

The Corral agent: dials the control plane named in its config file, keeps the connection
(reconnecting with backoff) and runs the commands the control plane sends. Logs one JSON object
per line on stderr. SIGTERM or SIGINT stop it after running commands finished.

Options:
  --config PATH  the config file 'corral agent join' wrote (default: $CORRAL_AGENT_CONFIG,
                 else ${DEFAULT_CONFIG_PATH})
  --help         this help

Environment:
  CORRAL_AGENT_CONFIG            the config file when --config is not given
  CORRAL_AGENT_STOP_WITH_PARENT  1: stop when the parent process is gone (the control plane's local agent)
  CORRAL_DRIVER                  the guest driver: pve (qm/pct), native (QEMU, LXC) or sim (simulated
                                 guests); default: pve where qm is installed, else native where QEMU
                                 is, else sim
  CORRAL_SIM_SPEED               the sim driver's pace: 1 realistic (default), 0 instant, 2 twice as slow
`;

/** A mistake on the command line: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type AgentInvocation = { readonly kind: 'help' } | { readonly kind: 'run'; readonly configPath: string };

/** `corral-agent [--config PATH]`: the config file from --config, else CORRAL_AGENT_CONFIG, else the default. */
export function parseAgentArguments(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): AgentInvocation {
  let values: { config?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (values.config === '') throw new UsageError('--config needs a path');
  return { kind: 'run', configPath: values.config ?? (env['CORRAL_AGENT_CONFIG'] || DEFAULT_CONFIG_PATH) };
}
