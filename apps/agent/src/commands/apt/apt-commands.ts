import type { UpgradablePackage } from '@corral/protocol';
import { CommandFailure } from '../../host/command-failure.js';
import { lastWords, runChecked, runProgram, type ProgramOutput } from '../../host/run-program.js';
import type { AreaHandlers } from '../area-handlers.js';
import { aptErrors, parsePackageRecords, parsePolicyOrigins, parseUpgradableList } from './apt-output.js';

/** apt must never stop to ask (a debconf prompt would hang until the request's timeout). */
const NONINTERACTIVE = { DEBIAN_FRONTEND: 'noninteractive' };
/** Slow mirrors make `apt-get update` long; the request's own timeout still bounds it. */
const UPDATE_TIMEOUT_MS = 30 * 60_000;

/**
 * PVE's `/nodes/{node}/apt`: refresh the index, list the upgrades, read a changelog. They run the
 * host's apt (apt's packages are the running system's, whatever the host root).
 */
export function aptCommands(): AreaHandlers<'node.apt.update' | 'node.apt.upgradable' | 'node.apt.changelog'> {
  return {
    'node.apt.update': async (_params, { signal, log }) => {
      const output = await runProgram('apt-get', ['update'], { signal, env: NONINTERACTIVE, onLine: log, timeoutMs: UPDATE_TIMEOUT_MS });
      if (output.code !== 0) throw aptFailure('apt-get update', output);
      return null;
    },

    'node.apt.upgradable': async (_params, { signal }) => {
      const upgradable = parseUpgradableList((await runChecked('apt', ['list', '--upgradable'], { signal, env: NONINTERACTIVE })).stdout);
      if (upgradable.length === 0) return [];
      const wanted = [...new Set(upgradable.map((line) => `${line.package}=${line.version}`))];
      // apt-cache show exits 100 when one record is missing, yet prints the others: read what it printed.
      const [policy, shown] = await Promise.all([
        runChecked('apt-cache', ['policy'], { signal }),
        runProgram('apt-cache', ['show', ...wanted], { signal }),
      ]);
      const origins = parsePolicyOrigins(policy.stdout);
      const records = parsePackageRecords(shown.stdout);
      return upgradable.map((line): UpgradablePackage => {
        const sameVersion = records.filter((record) => record.package === line.package && record.version === line.version);
        const record = sameVersion.find((candidate) => candidate.arch === line.arch) ?? sameVersion[0];
        return {
          package: line.package,
          title: record?.title ?? '',
          version: line.version,
          oldVersion: line.oldVersion,
          arch: line.arch,
          origin: line.suites.map((suite) => origins.get(suite)).find((origin) => origin !== undefined),
          priority: record?.priority,
          section: record?.section,
          description: record?.description,
        };
      });
    },

    'node.apt.changelog': async ({ name, version }, { signal }) => {
      // -qq: only the changelog on stdout, no download progress.
      const output = await runProgram('apt-get', ['-qq', 'changelog', version === undefined ? name : `${name}=${version}`], {
        signal,
        env: NONINTERACTIVE,
      });
      if (output.code !== 0) {
        // apt's words for a package or version it has no record of: the API's 404.
        if (/Unable to locate package|was not found/.test(output.stderr))
          throw new CommandFailure(
            'not-found',
            `package '${version === undefined ? name : `${name}=${version}`}' does not exist in apt's index`,
          );
        throw aptFailure('apt-get changelog', output);
      }
      return output.stdout;
    },
  };
}

function aptFailure(what: string, output: ProgramOutput): CommandFailure {
  const errors = aptErrors(output.stderr);
  return new CommandFailure('failed', `${what} failed: ${errors.length > 0 ? errors.join('; ') : lastWords(output)}`);
}
