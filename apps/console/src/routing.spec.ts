import { href, parseRoute, type Route } from './routing';

describe('routes in the hash', () => {
  it.each<Route>([
    { view: 'dashboard' },
    { view: 'tasks' },
    { view: 'tasks', upid: 'UPID:pve1:00001234:00005678:6560A0B0:qmstart:100:root@pam:' },
    { view: 'events' },
    { view: 'access' },
    { view: 'create-vm' },
    { view: 'create-ct' },
    { view: 'node', node: 'pve 1/a' },
    { view: 'guest', vmid: 100 },
    { view: 'storage', node: 'pve1', storage: 'local-lvm' },
    { view: 'pool', pool: 'dev' },
  ])('reads back what it writes: %j', (route) => {
    expect(parseRoute(href(route))).toEqual(route);
  });

  it('takes anything it does not know for the dashboard', () => {
    expect(parseRoute('')).toEqual({ view: 'dashboard' });
    expect(parseRoute('#/guest/abc')).toEqual({ view: 'dashboard' });
    expect(parseRoute('#/nothing/here')).toEqual({ view: 'dashboard' });
  });
});
