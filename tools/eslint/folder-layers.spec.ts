import { lintRule } from './lint-rule.js';

const lint = lintRule('corral/folder-layers');
const WRONG_WAY = 'a folder imports only from itself and from lower tiers';

// The workspace config gives the agent's folders these tiers: logging and config (0), host and
// connection (1), state (2), drivers (3), reports (4), ha (5), commands (6), requests (7).
describe('the folder layers lint rule', () => {
  it.each([
    {
      what: 'an import of a higher tier, naming both folders and their tiers',
      file: 'apps/agent/src/drivers/x.ts',
      code: "export { createCommandHandlers } from '../commands/command-handlers.js';\n",
      message: `'../commands/command-handlers.js': folder 'drivers' (tier 3) must not import folder 'commands' (tier 6); ${WRONG_WAY}`,
    },
    {
      what: 'an import of another folder of the same tier',
      file: 'apps/agent/src/host/x.ts',
      code: "export { Outbox } from '../connection/outbox.js';\n",
      message: `'../connection/outbox.js': folder 'host' (tier 1) must not import folder 'connection' (tier 1); ${WRONG_WAY}`,
    },
    {
      what: 'an import, dynamic too, of an entry point directly in the root',
      file: 'apps/agent/src/requests/x.ts',
      code: "export const agent = import('../agent.js');\n",
      message: "'../agent.js': folder 'requests' (tier 7) must not import a file directly in apps/agent/src, above every tier",
    },
    {
      what: 'every file of a folder that no tier lists, so that a new folder gets one',
      file: 'apps/agent/src/extras/x.ts',
      code: 'export const x = 1;\n',
      message: "folder 'extras' is in no tier of apps/agent/src: give it one in the folder-layers rule's tiers",
    },
  ])('fails $what', ({ file, code, message }) => {
    expect(lint(file, code)).toEqual([message]);
  });

  it('accepts imports of its own folder, from any depth, and of lower tiers, and leaves packages alone', () => {
    const code =
      "export { GuestDriver } from '../guest-driver.js';\nexport { runProgram } from '../../host/run-program.js';\nexport { jsonLogger } from '../../logging/logger.js';\nexport { z } from 'zod';\n";
    expect(lint('apps/agent/src/drivers/native/x.ts', code)).toEqual([]);
  });

  it('lets the entry points in the root and the tests import any folder', () => {
    const code =
      "export { createCommandHandlers } from './commands/command-handlers.js';\nexport { RequestRunner } from './requests/request-runner.js';\n";
    expect(lint('apps/agent/src/main.ts', code)).toEqual([]);
    expect(lint('apps/agent/src/host/x.spec.ts', code.replaceAll("'./", "'../"))).toEqual([]);
  });
});
