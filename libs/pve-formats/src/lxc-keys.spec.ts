import { LXC_KEYS } from './lxc-keys.js';
import { ValueError } from './value-rules.js';

describe("containers' search domains (PVE's dns-name-list)", () => {
  const searchdomain = LXC_KEYS['searchdomain'];

  it.each(['example.com', 'example.com corp.example.com', 'a.example;b.example,c'])('takes %s', (given) => {
    expect(searchdomain?.parse(given)).toBe(given);
  });

  it.each(['+5', 'exa_mple.com', 'example..com', '-example.com', 'example.com;'])('refuses %s', (given) => {
    expect(() => searchdomain?.parse(given)).toThrow(new ValueError('must be DNS names separated by spaces, commas or semicolons'));
  });
});
