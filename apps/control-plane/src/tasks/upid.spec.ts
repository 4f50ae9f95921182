import { formatUpid, parseUpid } from './upid.js';

describe('UPIDs', () => {
  it("writes PVE's format and reads it back", () => {
    const task = {
      node: 'node01',
      pid: 0x3263,
      pstart: 0x16167ace,
      starttime: 0x621ee230,
      type: 'srvreload',
      id: 'networking',
      user: 'root@pam',
    };
    // A UPID as PVE writes one.
    expect(formatUpid(task)).toBe('UPID:node01:00003263:16167ACE:621EE230:srvreload:networking:root@pam:');
    expect(parseUpid(formatUpid(task))).toEqual(task);
  });

  it('keeps an empty id and a token user', () => {
    const upid = formatUpid({ node: 'pve', pid: 1, pstart: 2, starttime: 3, type: 'aptupdate', id: '', user: 'root@pam!ci' });
    expect(upid).toBe('UPID:pve:00000001:00000002:00000003:aptupdate::root@pam!ci:');
    expect(parseUpid(upid)?.user).toBe('root@pam!ci');
  });

  it('refuses what is not a UPID', () => {
    for (const text of ['', 'UPID:pve:1:2:3:t::u:', 'UPID:pve:00000001:00000002:00000003:t::u', 'PID:pve:00000001:00000002:00000003:t::u:'])
      expect(parseUpid(text)).toBeNull();
  });
});
