import { CommandFailure } from '../../host/command-failure.js';
import { findProgram, programMissing } from '../../host/find-program.js';
import { writeHostFile } from '../../host/host-files.js';
import { hostPath, type Host } from '../../host/host.js';
import { runProgram, type ProgramOutput } from '../../host/run-program.js';
import type { AreaHandlers } from '../area-handlers.js';
import { REMOVE_TABLE, renderRuleset } from './nft-ruleset.js';

export const FIREWALL_FILE = '/etc/corral/firewall.nft';

/**
 * The node firewall: rendered to `<host root>/etc/corral/firewall.nft` and checked by `nft -c`
 * wherever nft is installed, enabled or not, so a ruleset nft refuses fails when it is saved and
 * not later when it is switched on. Only a live host's kernel is changed: the table is loaded
 * when enabled and removed when not.
 */
export function firewallCommands(host: Host): AreaHandlers<'node.firewall.apply'> {
  return {
    'node.firewall.apply': async (ruleset, { signal, log }) => {
      const nft = await findProgram('nft');
      if (nft === undefined && ruleset.enabled && host.live) throw programMissing('nft');
      await writeHostFile(host, FIREWALL_FILE, renderRuleset(ruleset));
      const file = hostPath(host, FIREWALL_FILE);

      if (nft === undefined) {
        log(`nft is not installed: ${FIREWALL_FILE} written, not checked${host.live ? ', and no table of ours can be loaded' : ''}`);
        return { checked: false, applied: false };
      }
      failUnlessOk(await runProgram('nft', ['-c', '-f', file], { signal }), 'nft refused the ruleset');

      if (!host.live) {
        log(`host root ${host.root} is not the running system: ${FIREWALL_FILE} written and checked, the kernel's firewall left alone`);
        return { checked: true, applied: false };
      }
      if (!ruleset.enabled) {
        failUnlessOk(await runProgram('nft', ['-f', '-'], { signal, input: REMOVE_TABLE }), 'nft could not remove the firewall table');
        log('firewall disabled: table inet corral removed');
        return { checked: true, applied: false };
      }
      failUnlessOk(await runProgram('nft', ['-f', file], { signal }), 'nft could not load the ruleset');
      log('firewall enabled: table inet corral loaded');
      return { checked: true, applied: true };
    },
  };
}

/** nft's own error text: its first lines name the file position, the rule and a caret under the fault. */
function failUnlessOk(output: ProgramOutput, what: string): void {
  if (output.code === 0) return;
  const said = output.stderr.trim().split('\n').slice(0, 6).join('\n') || `exit code ${output.code}`;
  throw new CommandFailure('failed', `${what}: ${said}`);
}
