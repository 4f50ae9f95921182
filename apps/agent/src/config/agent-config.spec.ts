import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, readAgentConfig } from './agent-config.js';

const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');
const CREDENTIAL = 's3cret-credential_0123456789';
const VALID = { url: 'https://cp.example:8006', fingerprint: FINGERPRINT, node: 'pve1', credential: CREDENTIAL };

describe('the agent config file', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'corral-agent-config-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function file(content: unknown, mode = 0o600): Promise<string> {
    const path = join(dir, 'agent.json');
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content), { mode });
    await chmod(path, mode);
    return path;
  }

  /** The message of the ConfigError the file raises. */
  async function refusal(content: unknown): Promise<string> {
    const path = await file(content);
    const error = await readAgentConfig(path).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!(error instanceof ConfigError)) throw new Error(`no ConfigError for ${JSON.stringify(content)}`);
    return error.message.replace(`config ${path}: `, '');
  }

  it('reads what corral agent join writes, with host root / and the state under it by default', async () => {
    const { config, readableByOthers } = await readAgentConfig(await file(VALID));
    expect(config).toEqual({
      urls: [new URL('https://cp.example:8006')],
      fingerprint: FINGERPRINT,
      node: 'pve1',
      credential: CREDENTIAL,
      hostRoot: '/',
      stateDir: '/var/lib/corral/agent',
    });
    expect(readableByOthers).toBe(false);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes a host root and a fingerprint written without colons or in lower case', async () => {
    const { config } = await readAgentConfig(
      await file({ ...VALID, fingerprint: FINGERPRINT.replace(/:/g, '').toLowerCase(), hostRoot: '/srv/host' }),
    );
    expect(config).toEqual(
      expect.objectContaining({ fingerprint: FINGERPRINT, hostRoot: '/srv/host', stateDir: '/srv/host/var/lib/corral/agent' }),
    );
  });

  it('takes a list of control-plane URLs, in order', async () => {
    const { config } = await readAgentConfig(await file({ ...VALID, url: ['https://cp1.example:8006', 'https://cp2.example:8006'] }));
    expect(config.urls.map((url) => url.host)).toEqual(['cp1.example:8006', 'cp2.example:8006']);
  });

  it('takes a state directory', async () => {
    expect((await readAgentConfig(await file({ ...VALID, stateDir: '/srv/state' }))).config.stateDir).toBe('/srv/state');
  });

  it('says when others may read the file that holds the credential', async () => {
    expect((await readAgentConfig(await file(VALID, 0o644))).readableByOthers).toBe(true);
  });

  it.each([
    [{ ...VALID, url: 'http://cp.example:8006' }, 'url: must be an https:// URL such as https://cp.example:8006'],
    [{ ...VALID, url: 42 }, 'url: must be an https:// URL or a list of them'],
    [{ ...VALID, url: ['https://cp.example:8006', 'cp2'] }, 'url.1: must be an https:// URL such as https://cp.example:8006'],
    [{ ...VALID, url: [] }, 'url: must name 1 to 16 URLs'],
    [{ ...VALID, fingerprint: 'AB:CD' }, 'fingerprint: must be a SHA-256 fingerprint: 32 hex bytes, AB:CD:...'],
    [{ ...VALID, node: 'pve_1' }, 'node: must be a host name label (letters, digits and inner hyphens, at most 63)'],
    [{ ...VALID, hostRoot: 'srv/host' }, 'hostRoot: must be an absolute path'],
    [{ ...VALID, stateDir: 'state' }, 'stateDir: must be an absolute path'],
    [{ ...VALID, hostroot: '/' }, "unknown field 'hostroot'"],
    [{ url: VALID.url, node: 'pve1' }, 'fingerprint: is required; credential: is required'],
    [{ fingerprint: FINGERPRINT, node: 'pve1', credential: CREDENTIAL }, 'url: is required'],
    [[], 'Invalid input: expected object, received array'],
  ])('refuses %j, naming the field', async (content, message) => {
    expect(await refusal(content)).toBe(message);
  });

  it('never repeats the credential when refusing it or a file that is not JSON', async () => {
    expect(await refusal({ ...VALID, credential: `${CREDENTIAL} with blanks` })).toBe('credential: must be printable ASCII without blanks');
    const broken = JSON.stringify(VALID).replace(`"credential":"${CREDENTIAL}"`, `"credential":${CREDENTIAL}`);
    expect(await refusal(broken)).toBe('not valid JSON');
  });

  it('points at corral agent join when the file is missing', async () => {
    const path = join(dir, 'missing.json');
    await expect(readAgentConfig(path)).rejects.toThrow(
      new ConfigError(
        `config ${path}: ENOENT: no such file or directory, open '${path}': join this host first with 'corral agent join <url> --token T --fingerprint F'`,
      ),
    );
  });
});
