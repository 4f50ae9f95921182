import { signForwarding, verifyForwarding } from './forward-signature.js';

describe('the signature of a forwarded request', () => {
  const secret = 's'.repeat(32);
  const forwarding = { replica: '6f1c', client: '203.0.113.7' };
  const request = { method: 'POST', url: '/api2/json/nodes/pve2/qemu/100/status/start' };
  const now = 1_800_000_000_000;
  const header = signForwarding(secret, forwarding, request, now);

  it('is accepted for the same request within a minute, saying who forwarded it for which client', () => {
    expect(verifyForwarding(secret, header, request, now + 59_000)).toEqual(forwarding);
    expect(verifyForwarding(secret, header, request, now - 59_000)).toEqual(forwarding);
  });

  it('is refused for another secret, method, URL or client, when stale, and when malformed', () => {
    expect(verifyForwarding('t'.repeat(32), header, request, now)).toBeNull();
    expect(verifyForwarding(secret, header, { ...request, method: 'DELETE' }, now)).toBeNull();
    expect(verifyForwarding(secret, header, { ...request, url: '/api2/json/nodes/pve2/qemu/101/status/start' }, now)).toBeNull();
    expect(verifyForwarding(secret, header.replace('203.0.113.7', '198.51.100.1'), request, now)).toBeNull();
    expect(verifyForwarding(secret, header, request, now + 61_000)).toBeNull();
    for (const bad of ['', 'a b c', `${header} extra`, header.replace(/ \d+ /, ' soon '), header.slice(0, -1)])
      expect(verifyForwarding(secret, bad, request, now)).toBeNull();
  });
});
