import { setTimeout as sleep } from 'node:timers/promises';
import { defineFollowCommand } from '../command-line/command.js';
import { UsageError } from '../command-line/usage-error.js';
import { followEvents, type StreamedEvent } from '../events/follow-events.js';
import { serverSentEvents } from '../events/server-sent-events.js';

/** The event listener: `corral events listen --event-type vm-start` prints each VM start as it happens. */
export const EVENTS_LISTEN_COMMAND = defineFollowCommand({
  name: 'events listen',
  summary:
    'Print the events of the cluster as they happen, one line each (time, kind, node, vmid, seq); it reconnects and resumes after the last one by itself',
  positionals: [],
  options: {
    'event-type': { value: 'KIND[,KIND]', description: 'only these kinds, e.g. vm-start,vm-stop (docs/events.md lists them)' },
    node: { value: 'NAME', description: 'only the events of this node' },
    vmid: { value: 'VMID', description: 'only the events of this guest' },
    since: { value: 'SEQ', description: 'first the events after this seq (each line ends with its seq), then the new ones' },
    json: { value: '', description: 'one JSON object per line (docs/events.md has its fields)' },
  },
  follow: (args) => {
    const since = seqValue(args.since);
    const filters = { 'event-type': args['event-type'], node: args.node, vmid: args.vmid };
    return ({ output, client, headers }) =>
      followEvents({
        since,
        open: async (after) => {
          const params = { ...filters, since: after === undefined ? undefined : String(after) };
          return serverSentEvents(
            await client.stream({ method: 'GET', path: '/cluster/events', params }, { ...headers, accept: 'text/event-stream' }),
          );
        },
        print: (event) => output.out(`${args.json === undefined ? eventLine(event) : JSON.stringify(event)}\n`),
        say: (text) => output.err(`corral: ${text}\n`),
        wait: (ms) => sleep(ms),
      });
  },
});

/** `2026-05-04T09:31:02.120Z vm-start node=pve1 vmid=100 seq=1234`; a node event has no vmid. */
export function eventLine(event: StreamedEvent): string {
  return `${event.timestamp} ${event.event} node=${event.node}${event.vmid === undefined ? '' : ` vmid=${event.vmid}`} seq=${event.seq}`;
}

function seqValue(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new UsageError(`--since must be the seq of an event (a whole number), not '${text}'`);
  return Number(text);
}
