import { sha512Crypt } from './sha512-crypt.js';

describe('sha512Crypt', () => {
  // The vector of the specification (default rounds), and what `openssl passwd -6 -salt abcdefgh secret` prints.
  it('gives the hashes of the specification', () => {
    expect(sha512Crypt('Hello world!', 'saltstring')).toBe(
      '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
    );
  });

  it('gives what openssl passwd -6 gives', () => {
    expect(sha512Crypt('secret', 'abcdefgh')).toBe(
      '$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/O6IND4WQhG.',
    );
  });

  it('uses a new random salt each time by default', () => {
    const [a, b] = [sha512Crypt('secret'), sha512Crypt('secret')];
    expect(a).toMatch(/^\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}$/);
    expect(a).not.toBe(b);
  });

  it('refuses a salt crypt cannot read', () => {
    expect(() => sha512Crypt('x', 'a$b')).toThrow('salt');
  });
});
