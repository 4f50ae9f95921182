import { fullTokenidParam, parseFullTokenid, splitFullTokenid } from './full-tokenid.js';

describe('parseFullTokenid', () => {
  it("takes PVE's user@realm!tokenid as it is", () => {
    expect(parseFullTokenid('alice@pve!ci-bot')).toBe('alice@pve!ci-bot');
  });

  it("reads Corral's user@realm=tokenid as the same token", () => {
    expect(parseFullTokenid('alice@pve=ci-bot')).toBe('alice@pve!ci-bot');
  });

  it.each(['alice@pve', 'alice!ci', 'alice@pve!', 'alice@pve!1abc', '@pve!ci', 'alice@pve!ci!x', 'al ice@pve!ci'])('refuses %s', (text) => {
    expect(parseFullTokenid(text)).toBeNull();
  });
});

describe('splitFullTokenid', () => {
  it('splits at the last !', () => {
    expect(splitFullTokenid('alice@pve!ci')).toEqual({ userid: 'alice@pve', tokenid: 'ci' });
  });
});

describe('fullTokenidParam', () => {
  it('normalises the value to the ! form', () => {
    expect(fullTokenidParam('t').parse('alice@pve=ci')).toBe('alice@pve!ci');
  });

  it('takes a user id only with orUser', () => {
    expect(fullTokenidParam('t').safeParse('alice@pve').success).toBe(false);
    expect(fullTokenidParam('t', { orUser: true }).parse('alice@pve')).toBe('alice@pve');
    expect(fullTokenidParam('t', { orUser: true }).safeParse('alice').success).toBe(false);
  });
});
