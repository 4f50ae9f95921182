import { randomBytes } from 'node:crypto';
import { signCsrfToken, signTicket, ticketTime, verifyCsrfToken, verifyTicket, type SigningKey } from './tickets.js';

const key: SigningKey = { id: 1, secret: randomBytes(32) };
const other: SigningKey = { id: 2, secret: randomBytes(32) };
const now = 1_763_700_000;

describe('tickets', () => {
  it("have PVE's shape and verify for their user", () => {
    const ticket = signTicket('root@pam', now, key);
    expect(ticket).toMatch(/^PVE:root@pam:[0-9A-F]{8}::[A-Za-z0-9+/]+=*$/);
    expect(ticketTime(ticket)).toBe(now);
    expect(verifyTicket(ticket, now + 10, [key])).toBe('root@pam');
  });

  it('verify with any of the keys given (the previous key after a rotation)', () => {
    expect(verifyTicket(signTicket('a@pve', now, key), now, [other, key])).toBe('a@pve');
    expect(verifyTicket(signTicket('a@pve', now, key), now, [other])).toBeNull();
  });

  it('expire after two hours and are refused from more than five minutes in the future', () => {
    const ticket = signTicket('a@pve', now, key);
    expect(verifyTicket(ticket, now + 7199, [key])).toBe('a@pve');
    expect(verifyTicket(ticket, now + 7200, [key])).toBeNull();
    expect(verifyTicket(ticket, now - 299, [key])).toBe('a@pve');
    expect(verifyTicket(ticket, now - 300, [key])).toBeNull();
  });

  it('cannot be altered: another user or time breaks the signature', () => {
    const ticket = signTicket('a@pve', now, key);
    expect(verifyTicket(ticket.replace('a@pve', 'root@pam'), now, [key])).toBeNull();
    const later = (now + 60).toString(16).toUpperCase();
    expect(verifyTicket(ticket.replace(/:[0-9A-F]{8}::/, `:${later}::`), now, [key])).toBeNull();
    expect(verifyTicket('garbage', now, [key])).toBeNull();
  });

  it('escape a colon in the user id', () => {
    expect(verifyTicket(signTicket('odd:name@pve', now, key), now, [key])).toBe('odd:name@pve');
  });
});

describe('CSRF prevention tokens', () => {
  it("belong to one user and have PVE's shape", () => {
    const token = signCsrfToken('a@pve', now, key);
    expect(token).toMatch(/^[0-9A-F]{8}:[A-Za-z0-9+/]{43}$/);
    expect(verifyCsrfToken(token, 'a@pve', now, [key])).toBe(true);
    expect(verifyCsrfToken(token, 'b@pve', now, [key])).toBe(false);
    expect(verifyCsrfToken(token, 'a@pve', now + 7200, [key])).toBe(false);
  });

  it('are not tickets and tickets are not CSRF tokens', () => {
    const ticket = signTicket('a@pve', now, key);
    const signature = (ticket.split('::')[1] ?? '').replace(/=+$/, '');
    expect(verifyCsrfToken(`${ticket.split(':')[2]}:${signature}`, 'a@pve', now, [key])).toBe(false);
  });
});
