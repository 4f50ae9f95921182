import type { ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { startOnTestDatabase } from '../support/control-plane.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'proxmoxer-root-password';
// Debian's interpreter: the `python3` on PATH may be another install that cannot see Debian's packages.
const PYTHON = '/usr/bin/python3';

// The Debian python3-proxmoxer package, unchanged, against a started Corral.
describe('proxmoxer (Debian python3-proxmoxer)', () => {
  let cp: ControlPlaneProcess;
  beforeAll(async () => {
    cp = await startOnTestDatabase({ env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
  });
  afterAll(() => cp?.stop());

  it('logs in with a password and with an API token, and lists /access/users and /version', async () => {
    const { stdout } = await run(PYTHON, [resolve('test/compat/proxmoxer_client.py')], {
      env: { CORRAL_HOST: '127.0.0.1', CORRAL_PORT: String(cp.port), CORRAL_PASSWORD: ROOT_PASSWORD },
    }).catch((error: { stderr?: string }) => {
      throw new Error(
        `proxmoxer failed (is python3-proxmoxer installed? tools/test-deps.sh installs it):\n${error.stderr ?? String(error)}`,
      );
    });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    const session = {
      version: expect.objectContaining({ version: expect.stringMatching(/^9\./), release: expect.any(String) }),
      users: ['root@pam'],
    };
    expect(result).toEqual({
      password: session,
      token_created: { 'full-tokenid': 'root@pam!proxmoxer', info: expect.objectContaining({ privsep: 0, comment: 'compat test' }) },
      token: session,
      wrong_password: 'AuthenticationError',
    });
  });
});
