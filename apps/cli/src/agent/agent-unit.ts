import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalContext } from '../command-line/command.js';
import { LocalFailure } from '../command-line/local-failure.js';
import { AtomicFile } from './atomic-file.js';

export const UNIT_NAME = 'corral-agent.service';

/**
 * The systemd unit that runs the agent with `configPath` and restarts it whenever it ends.
 * `KillMode=process`: a stop or restart of the unit signals the agent only. What the agent started
 * lives on, as it does after a crash: the guests (native QEMU and LXC run without their agent, as in
 * PVE) and the HA fence watchdog, which must outlive the agent to fence the node's HA guests when
 * the agent's HA lease runs out (docs/agents.md "The HA lease"). The default (control-group) would
 * kill them all with the agent.
 */
export function agentUnit(nodePath: string, agentMain: string, configPath: string): string {
  return [
    '[Unit]',
    'Description=Corral agent: connects this host to the Corral control plane',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[nodePath, agentMain, '--config', configPath].map(unitArgument).join(' ')}`,
    'Restart=always',
    'RestartSec=2',
    'KillMode=process',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/**
 * One word of an ExecStart line (systemd.service(5), systemd.unit(5)): `%` and `$` doubled so that
 * systemd does not expand them, and quoted when it holds anything beyond plain path characters.
 */
function unitArgument(word: string): string {
  const escaped = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** `corral agent install`: writes the unit for an agent that has joined; systemctl is left to the operator. */
export async function installAgentUnit(configPath: string, unitDir: string, context: LocalContext): Promise<number> {
  const isFile = await stat(configPath).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (!isFile)
    throw new LocalFailure(
      `no agent config at ${configPath}: join this host first with 'corral agent join <url> --token T --fingerprint F'`,
    );
  const unitPath = join(unitDir, UNIT_NAME);
  const file = await AtomicFile.create(unitPath, 0o644);
  await file.commit(agentUnit(process.execPath, context.agentMain(), configPath));
  context.output.out(`${JSON.stringify({ unit: unitPath, config: configPath }, null, 2)}\n`);
  context.output.err(
    `corral: wrote ${unitPath}; start the agent now and at every boot with: systemctl daemon-reload && systemctl enable --now corral-agent\n`,
  );
  return 0;
}
