import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiSession, LocalContext } from '../command-line/command.js';
import { LocalFailure } from '../command-line/local-failure.js';
import { parseCommandLine } from '../command-line/parse-command-line.js';
import { UsageError } from '../command-line/usage-error.js';
import type { ApiCall } from '../http/api-call.js';
import { ApiFailure } from '../http/api-failure.js';
import { EVENTS_WEBHOOK_ADD_COMMAND } from './events-webhook-command.js';

const COMMANDS = [EVENTS_WEBHOOK_ADD_COMMAND];

/** The command run against an API that records each call and answers as `answer` says. */
async function run(argv: string[], answer: (call: ApiCall) => unknown = () => null) {
  const invocation = parseCommandLine(['events', 'webhook', 'add', ...argv], COMMANDS);
  if (invocation.kind !== 'task') throw new Error('not a task');
  const calls: ApiCall[] = [];
  const stderr: string[] = [];
  const api: ApiSession = {
    send: async (call) => {
      calls.push(call);
      return answer(call);
    },
  };
  const context: LocalContext = {
    output: { out: () => undefined, err: (text) => void stderr.push(text) },
    agentMain: () => '',
    api: async () => api,
  };
  const outcome = await invocation.task(context).then(
    (code) => ({ code }),
    (error: unknown) => ({ error }),
  );
  // Parameters left undefined are not sent.
  const sent = calls.map((call) => ({
    ...call,
    params: Object.fromEntries(Object.entries(call.params).filter(([, value]) => value !== undefined)),
  }));
  return { ...outcome, calls: sent, stderr: stderr.join('') };
}

describe('corral events webhook add', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-webhook-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('makes the webhook with the signing key of the secret file, then a matcher of the kinds that targets it', async () => {
    const file = join(dir, 'key');
    await writeFile(file, 'k3y-\u00e9\n');
    const result = await run([
      'ops',
      '--url',
      'http://127.0.0.1:9000/hook',
      '--event-type',
      'vm-start,vm-stop',
      '--secret-file',
      file,
      '--allow-local',
    ]);
    expect(result.calls).toEqual([
      {
        method: 'POST',
        path: '/cluster/notifications/endpoints/webhook',
        params: {
          name: 'ops',
          url: 'http://127.0.0.1:9000/hook',
          method: 'post',
          secret: `name=signing,value=${Buffer.from('k3y-\u00e9').toString('base64')}`,
          'allow-local': '1',
          comment: 'corral events webhook add',
        },
      },
      {
        method: 'POST',
        path: '/cluster/notifications/matchers',
        params: { name: 'ops', 'match-field': 'exact:type=vm-start,vm-stop', target: 'ops', comment: "sends webhook 'ops' its events" },
      },
    ]);
    expect(result).toEqual(
      expect.objectContaining({
        code: 0,
        stderr: expect.stringContaining("webhook 'ops' gets the events vm-start, vm-stop, signed (X-Corral-Signature)"),
      }),
    );
  });

  it('without --event-type sends every event; without a secret file, unsigned; without --allow-local, not allowed', async () => {
    const result = await run(['all', '--url', 'https://hooks.example.com/x']);
    expect(result.calls.map((call) => call.params)).toEqual([
      { name: 'all', url: 'https://hooks.example.com/x', method: 'post', comment: 'corral events webhook add' },
      { name: 'all', target: 'all', comment: "sends webhook 'all' its events" },
    ]);
    expect(result.stderr).toContain(
      "webhook 'all' gets every event; its deliveries: 'corral get /cluster/notifications/endpoints/webhook/all/deliveries'",
    );
  });

  it('deletes the webhook again when the matcher is refused, and ends with the refusal', async () => {
    const refusal = new ApiFailure(400, ["match-field: unknown event type 'vm-explode'"]);
    const result = await run(['oops', '--url', 'https://hooks.example.com/x', '--event-type', 'vm-explode'], (call) => {
      if (call.path === '/cluster/notifications/matchers') throw refusal;
      return null;
    });
    expect(result.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'POST /cluster/notifications/endpoints/webhook',
      'POST /cluster/notifications/matchers',
      'DELETE /cluster/notifications/endpoints/webhook/oops',
    ]);
    expect(result).toEqual(expect.objectContaining({ error: refusal }));
  });

  it('calls nothing when the secret file cannot be read or is empty', async () => {
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    for (const file of [join(dir, 'missing'), empty]) {
      const result = await run(['x', '--url', 'https://hooks.example.com/x', '--secret-file', file]);
      expect(result.calls).toEqual([]);
      expect(result).toEqual(expect.objectContaining({ error: expect.any(LocalFailure) }));
    }
  });

  it.each([
    [['x'], 'events webhook add: missing --url'],
    [['--url', 'https://h/'], 'events webhook add: missing <name>'],
    [
      ['x', '--url', 'https://h/', '--event-type', 'vm-start,,vm-stop'],
      "events webhook add: --event-type must be event kinds separated by commas, such as vm-start,vm-stop, not ''",
    ],
    [['x', '--url', 'https://h/', '--allow-local=1'], 'events webhook add: --allow-local takes no value'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommandLine(['events', 'webhook', 'add', ...argv], COMMANDS)).toThrow(new UsageError(message));
  });
});
