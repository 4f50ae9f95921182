import { parseLxcLs, startErrors } from './lxc-tools.js';

describe('parseLxcLs', () => {
  it('reads names, states and the pids of running containers', () => {
    const text = 'NAME STATE   PID   \n200  RUNNING 11018 \n201  FROZEN  11420 \n202  STOPPED -     \n';
    expect(parseLxcLs(text)).toEqual([
      { name: '200', state: 'RUNNING', pid: 11018 },
      { name: '201', state: 'FROZEN', pid: 11420 },
      { name: '202', state: 'STOPPED' },
    ]);
  });

  it('reads an empty lxcpath (no header at all) as no containers', () => {
    expect(parseLxcLs('')).toEqual([]);
  });
});

describe('startErrors', () => {
  const log = [
    'lxc-start 200 20261121085910.631 WARN     cgfsng - ../src/lxc/cgroups/cgfsng.c:cgfsng_setup_limits:3232 - Invalid argument - Ignoring cgroup2 limits on legacy cgroup system',
    'lxc-start 200 20261121085910.632 ERROR    network - ../src/lxc/network.c:netdev_configure_server_veth:711 - No such file or directory - Failed to attach "veth3aRcxa" to bridge "vmbr0", bridge interface doesn\'t exist',
    'lxc-start 200 20261121085910.649 ERROR    network - ../src/lxc/network.c:lxc_create_network_priv:3427 - No such file or directory - Failed to create network device',
    'lxc-start 200 20261121085910.649 ERROR    start - ../src/lxc/start.c:lxc_spawn:1840 - Failed to create the network',
    'lxc-start 200 20261121085910.649 ERROR    lxccontainer - ../src/lxc/lxccontainer.c:wait_on_daemonized_start:878 - Received container state "ABORTING" instead of "RUNNING"',
    '',
  ].join('\n');

  it('gives the first errors of the log, where LXC says what went wrong', () => {
    expect(startErrors(log)).toBe(
      'No such file or directory - Failed to attach "veth3aRcxa" to bridge "vmbr0", bridge interface doesn\'t exist; No such file or directory - Failed to create network device; Failed to create the network',
    );
  });

  it('falls back to the last lines of a log without errors, and says so of an empty one', () => {
    expect(startErrors('one\ntwo\nthree\nfour\n')).toBe('two; three; four');
    expect(startErrors('')).toBe('the log is empty');
  });
});
