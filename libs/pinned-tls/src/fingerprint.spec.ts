import { parseFingerprint } from './fingerprint.js';

const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');

describe('a SHA-256 fingerprint as written by people', () => {
  it('takes the form the control plane prints, also without colons, in lower case or with blanks around', () => {
    expect(parseFingerprint(FINGERPRINT)).toBe(FINGERPRINT);
    expect(parseFingerprint(` ${FINGERPRINT.replace(/:/g, '').toLowerCase()}\n`)).toBe(FINGERPRINT);
  });

  it.each([FINGERPRINT.slice(3), FINGERPRINT.replace(/^../, 'ZZ'), `${FINGERPRINT}:00`, '', 'sha256'])('refuses %p', (text) => {
    expect(parseFingerprint(text)).toBeUndefined();
  });
});
