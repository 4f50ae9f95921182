import { UsageError } from '../command-line/usage-error.js';
import { credentialHeaders } from './authentication.js';

describe('credentials on a call', () => {
  it('sends an API token as PVEAPIToken on every method, with no CSRF token', () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      expect(credentialHeaders({ kind: 'token', token: 'alice@pve!ci=s3cret' }, method)).toEqual({
        authorization: 'PVEAPIToken=alice@pve!ci=s3cret',
      });
    }
  });

  it('sends a ticket as the PVEAuthCookie cookie, percent-encoded, and its CSRF token on changes only', () => {
    const session = { kind: 'ticket', ticket: 'PVE:alice@pve:66A1B2C3::a+b/c=', csrfToken: '66A1B2C3:xyz' } as const;
    const cookie = 'PVEAuthCookie=PVE%3Aalice%40pve%3A66A1B2C3%3A%3Aa%2Bb%2Fc%3D';
    expect(credentialHeaders(session, 'GET')).toEqual({ cookie });
    for (const method of ['POST', 'PUT', 'DELETE'] as const)
      expect(credentialHeaders(session, method)).toEqual({ cookie, CSRFPreventionToken: '66A1B2C3:xyz' });
  });

  it('reads with CORRAL_TICKET alone, and refuses a change without CORRAL_CSRF_TOKEN before sending it', () => {
    const session = { kind: 'ticket', ticket: 't', csrfToken: undefined } as const;
    expect(credentialHeaders(session, 'GET')).toEqual({ cookie: 'PVEAuthCookie=t' });
    expect(() => credentialHeaders(session, 'PUT')).toThrow(
      new UsageError('CORRAL_CSRF_TOKEN is needed with CORRAL_TICKET to change anything'),
    );
  });

  it('sends nothing without credentials', () => {
    expect(credentialHeaders({ kind: 'none' }, 'GET')).toEqual({});
  });
});
