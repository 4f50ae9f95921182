import type { FollowContext } from '../command-line/command.js';
import { parseCommandLine } from '../command-line/parse-command-line.js';
import { UsageError } from '../command-line/usage-error.js';
import type { ApiCall } from '../http/api-call.js';
import { ApiFailure } from '../http/api-failure.js';
import { EVENTS_LISTEN_COMMAND, eventLine } from './events-listen-command.js';

const COMMANDS = [EVENTS_LISTEN_COMMAND];

describe('corral events listen', () => {
  it('asks for server-sent events with its filters, the cursor and the credentials', async () => {
    const invocation = parseCommandLine(
      ['events', 'listen', '--event-type', 'vm-start,vm-stop', '--node', 'pve1', '--since', '42', '--json'],
      COMMANDS,
    );
    if (invocation.kind !== 'follow') throw new Error(`not a follow command: ${invocation.kind}`);
    const calls: [ApiCall, Readonly<Record<string, string>>][] = [];
    const client = {
      stream: (call: ApiCall, headers: Readonly<Record<string, string>>) => {
        calls.push([call, headers]);
        return Promise.reject(new ApiFailure(403, ['permission denied']));
      },
    };
    const context = {
      output: { out: () => undefined, err: () => undefined },
      client,
      headers: { authorization: 'PVEAPIToken=root@pam!ci=s' },
    } as unknown as FollowContext;
    await expect(invocation.follow(context)).rejects.toEqual(new ApiFailure(403, ['permission denied']));
    expect(calls).toEqual([
      [
        {
          method: 'GET',
          path: '/cluster/events',
          params: { 'event-type': 'vm-start,vm-stop', node: 'pve1', vmid: undefined, since: '42' },
        },
        { authorization: 'PVEAPIToken=root@pam!ci=s', accept: 'text/event-stream' },
      ],
    ]);
  });

  it('prints an event as time, kind, node, vmid (none for a node event) and seq', () => {
    expect(eventLine({ seq: 7, event: 'vm-start', node: 'pve1', vmid: 100, timestamp: '2026-05-04T09:31:02.120Z' })).toBe(
      '2026-05-04T09:31:02.120Z vm-start node=pve1 vmid=100 seq=7',
    );
    expect(eventLine({ seq: 8, event: 'node-down', node: 'pve2', timestamp: '2026-05-04T09:31:03.000Z' })).toBe(
      '2026-05-04T09:31:03.000Z node-down node=pve2 seq=8',
    );
  });

  it.each([
    [['--since', 'yesterday'], "events listen: --since must be the seq of an event (a whole number), not 'yesterday'"],
    [['--json=1'], 'events listen: --json takes no value'],
    [['pve1'], "events listen: unexpected argument 'pve1'"],
  ])('refuses %j', (args, message) => {
    expect(() => parseCommandLine(['events', 'listen', ...args], COMMANDS)).toThrow(new UsageError(message));
  });
});
