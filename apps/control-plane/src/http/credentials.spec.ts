import { readCredentials } from './credentials.js';

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('readCredentials', () => {
  it("reads PVE's and Corral's API token headers, splitting at the last =", () => {
    expect(readCredentials({ authorization: 'PVEAPIToken=root@pam!ci=0b8f-aa' })).toEqual({
      kind: 'token',
      userid: 'root@pam',
      tokenid: 'ci',
      secret: '0b8f-aa',
    });
    expect(readCredentials({ authorization: 'SVCAPIToken=alice@pve!a=b=c' })).toEqual({
      kind: 'token',
      userid: 'alice@pve',
      tokenid: 'a=b',
      secret: 'c',
    });
    expect(readCredentials({ authorization: 'SVCAPIToken alice@pve=s3cret' })).toEqual({
      kind: 'token',
      userid: 'alice@pve',
      tokenid: null,
      secret: 's3cret',
    });
  });

  it('refuses a token without a secret', () => {
    expect(readCredentials({ authorization: 'PVEAPIToken=root@pam!ci' }).kind).toBe('malformed');
    expect(readCredentials({ authorization: 'PVEAPIToken=root@pam!ci=' }).kind).toBe('malformed');
  });

  it('reads a ticket from the cookie (raw or percent-encoded) or the Authorization header', () => {
    const ticket = 'PVE:root@pam:66A1B2C3::c2ln';
    expect(readCredentials({ cookie: `a=b; PVEAuthCookie=${encodeURIComponent(ticket)}; c=d` })).toEqual({ kind: 'ticket', ticket });
    expect(readCredentials({ cookie: `PVEAuthCookie=${ticket}` })).toEqual({ kind: 'ticket', ticket });
    expect(readCredentials({ authorization: `PVEAuthCookie=${ticket}` })).toEqual({ kind: 'ticket', ticket });
  });

  it('prefers the Authorization header to the cookie', () => {
    expect(readCredentials({ authorization: 'PVEAPIToken=a@pve!t=s', cookie: 'PVEAuthCookie=x' }).kind).toBe('token');
  });

  it('reads Basic credentials, the password may hold colons', () => {
    expect(readCredentials({ authorization: basic('root@pam:a:b') })).toEqual({ kind: 'basic', username: 'root@pam', password: 'a:b' });
    expect(readCredentials({ authorization: basic('nocolon') }).kind).toBe('malformed');
  });

  it('reads a bearer token', () => {
    expect(readCredentials({ authorization: 'Bearer eyJ.x.y' })).toEqual({ kind: 'bearer', jwt: 'eyJ.x.y' });
  });

  it('reads the token query parameter, with or without the scheme word', () => {
    expect(readCredentials({ tokenQuery: 'PVEAPIToken=a@pve!t=s' })).toEqual({ kind: 'token', userid: 'a@pve', tokenid: 't', secret: 's' });
    expect(readCredentials({ tokenQuery: 'a@pve=s' })).toEqual({ kind: 'token', userid: 'a@pve', tokenid: null, secret: 's' });
    expect(readCredentials({ tokenQuery: ['a', 'b'] }).kind).toBe('malformed');
  });

  it('says none when nothing is presented, malformed for an unknown scheme', () => {
    expect(readCredentials({})).toEqual({ kind: 'none' });
    expect(readCredentials({ authorization: 'Digest x' }).kind).toBe('malformed');
  });
});
