import { signatureOf } from './signature.js';

describe('the signature of a webhook request', () => {
  it('is sha256=<hex HMAC-SHA256 of "<timestamp>.<body>"> keyed with the secret (the vector docs/webhooks.md\'s recipes reproduce)', () => {
    const body = '{"event":"vm-start","vmid":100,"timestamp":"2030-01-07T10:00:00.000Z","node":"pve1"}';
    expect(signatureOf(Buffer.from('k3y'), 1893924000, body)).toBe(
      'sha256=734aa8e1a062b9f5852712e702609432b0953f825a8e5281daa3f57a8165ea39',
    );
  });

  it('changes with the timestamp, so an old signature does not cover a new time', () => {
    expect(signatureOf(Buffer.from('k'), 1, '{}')).not.toBe(signatureOf(Buffer.from('k'), 2, '{}'));
  });
});
