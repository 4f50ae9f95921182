import { UsageError } from '../command-line/usage-error.js';
import { readEnvironment } from './environment.js';

const TOKEN = 'alice@pve!ci=0b7a4c4e-3f7e-4f0e-9a51-0c2d8f1e6a77';
const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');

describe('the environment', () => {
  it('defaults to https://127.0.0.1:8006, no credentials and normal certificate verification', () => {
    const settings = readEnvironment({});
    expect(settings.url.href).toBe('https://127.0.0.1:8006/');
    expect(settings.auth).toEqual({ kind: 'none' });
    expect(settings.fingerprint).toBeUndefined();
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('takes CORRAL_URL and treats an empty variable as unset', () => {
    expect(readEnvironment({ CORRAL_URL: 'https://[::1]:9006' }).url.host).toBe('[::1]:9006');
    expect(readEnvironment({ CORRAL_URL: '', CORRAL_TOKEN: '' })).toEqual({
      url: new URL('https://127.0.0.1:8006'),
      auth: { kind: 'none' },
      fingerprint: undefined,
    });
  });

  it('authenticates with CORRAL_TOKEN, CORRAL_TICKET (+ CORRAL_CSRF_TOKEN) or CORRAL_USER + CORRAL_PASSWORD', () => {
    expect(readEnvironment({ CORRAL_TOKEN: TOKEN }).auth).toEqual({ kind: 'token', token: TOKEN });
    expect(readEnvironment({ CORRAL_TOKEN: 'alice@pve=secret' }).auth).toEqual({ kind: 'token', token: 'alice@pve=secret' });
    expect(readEnvironment({ CORRAL_TICKET: 'PVE:alice@pve:66A1B2C3::sig' }).auth).toEqual({
      kind: 'ticket',
      ticket: 'PVE:alice@pve:66A1B2C3::sig',
      csrfToken: undefined,
    });
    expect(readEnvironment({ CORRAL_TICKET: 't', CORRAL_CSRF_TOKEN: 'c' }).auth).toEqual({ kind: 'ticket', ticket: 't', csrfToken: 'c' });
    expect(readEnvironment({ CORRAL_USER: 'root@pam', CORRAL_PASSWORD: 'pw' }).auth).toEqual({
      kind: 'password',
      username: 'root@pam',
      password: 'pw',
    });
  });

  it('pins CORRAL_FINGERPRINT in the form the control plane prints, also given without colons or in lower case', () => {
    expect(readEnvironment({ CORRAL_FINGERPRINT: FINGERPRINT }).fingerprint).toBe(FINGERPRINT);
    expect(readEnvironment({ CORRAL_FINGERPRINT: ` ${FINGERPRINT.replace(/:/g, '').toLowerCase()}\n` }).fingerprint).toBe(FINGERPRINT);
  });

  it.each([
    [
      { CORRAL_URL: 'http://127.0.0.1:8006' },
      "CORRAL_URL must be an https:// URL such as https://127.0.0.1:8006, not 'http://127.0.0.1:8006'",
    ],
    [{ CORRAL_URL: '127.0.0.1:8006' }, "CORRAL_URL must be an https:// URL such as https://127.0.0.1:8006, not '127.0.0.1:8006'"],
    [{ CORRAL_TOKEN: TOKEN, CORRAL_TICKET: 't' }, 'set one way to authenticate, not CORRAL_TOKEN and CORRAL_TICKET'],
    [
      { CORRAL_TICKET: 't', CORRAL_USER: 'root@pam', CORRAL_PASSWORD: 'pw' },
      'set one way to authenticate, not CORRAL_TICKET and CORRAL_USER',
    ],
    [{ CORRAL_CSRF_TOKEN: 'c' }, 'CORRAL_CSRF_TOKEN goes with CORRAL_TICKET'],
    [{ CORRAL_USER: 'root@pam' }, 'CORRAL_USER and CORRAL_PASSWORD go together'],
    [{ CORRAL_PASSWORD: 'pw' }, 'CORRAL_USER and CORRAL_PASSWORD go together'],
    [{ CORRAL_FINGERPRINT: FINGERPRINT.slice(3) }, 'CORRAL_FINGERPRINT must be a SHA-256 fingerprint: 32 hex bytes, AA:BB:...'],
    [{ CORRAL_FINGERPRINT: FINGERPRINT.replace(/^../, 'ZZ') }, 'CORRAL_FINGERPRINT must be a SHA-256 fingerprint: 32 hex bytes, AA:BB:...'],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => readEnvironment(env)).toThrow(new UsageError(message));
  });

  it.each(['alice@pve!ci', 'alice!ci=secret', 'alice@pve!ci=', 'alice@pve!ci=two words'])(
    'refuses the malformed token %p without echoing it',
    (token) => {
      let message = '';
      try {
        readEnvironment({ CORRAL_TOKEN: token });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe('CORRAL_TOKEN must look like user@realm!tokenid=secret');
    },
  );
});
