import { encodeFrame, parseAgentFrame, parseControlPlaneFrame, parseFrame } from './frame.js';

const hello = { type: 'hello', protocol: 1, agentVersion: '0.1.0', node: 'pve1', session: 's-1', capabilities: ['driver:sim'] };
const welcome = { type: 'welcome', protocol: 1, node: 'pve1', heartbeatMs: 2000, time: '2026-05-04T09:30:12.345Z' };
const result = { type: 'result', seq: 7, id: 'req-1', result: { ok: 1 } };

const errorOf = (parsed: ReturnType<typeof parseFrame>) => (parsed.ok ? `parsed as ${parsed.frame.type}` : parsed.error);

describe('parseFrame', () => {
  it('names the unknown type and the types it expected', () => {
    expect(errorOf(parseFrame({ type: 'ping' }))).toBe(
      "type: 'ping' is not a frame either side sends (expected hello, heartbeat, result, failure, log, report, event, welcome, request, ack, cancel, lease)",
    );
  });

  it('says when the type is missing', () => {
    expect(errorOf(parseFrame({ node: 'pve1' }))).toMatch(/^type: missing \(expected hello, /);
  });

  it.each([['hello'], [null], [[hello]], [42], [undefined]])('refuses %j, which is not an object', (value) => {
    expect(errorOf(parseFrame(value))).toMatch(/expected object/);
  });

  it('names a missing field', () => {
    const { node: _node, ...withoutNode } = hello;
    expect(errorOf(parseFrame(withoutNode))).toBe('node: Invalid input: expected string, received undefined');
  });

  it('names every field of the wrong type, with its path', () => {
    const error = errorOf(parseFrame({ ...hello, protocol: '1', capabilities: ['driver:sim', 7] }));
    expect(error).toContain('protocol: Invalid input: expected number, received string');
    expect(error).toContain('capabilities[1]: Invalid input: expected string, received number');
  });

  it('drops a field it does not know, so a newer peer may add optional ones', () => {
    expect(parseFrame({ ...welcome, motd: 'hi' })).toStrictEqual({ ok: true, frame: welcome });
  });

  it.each([
    ['a sequence number of 0', { ...result, seq: 0 }, 'seq: '],
    ['a fractional sequence number', { ...result, seq: 1.5 }, 'seq: '],
    ['a result without its result', { type: 'result', seq: 7, id: 'req-1' }, 'result: must be a JSON value'],
    ['a request id with a space', { ...result, id: 'req 1' }, 'id: must be 1 to 64'],
    ['a node name with a dot', { ...hello, node: 'pve1.example.com' }, 'node: must be a host name label'],
    [
      'a log line holding a line break',
      { type: 'log', seq: 1, id: 'r', lines: [{ n: 1, text: 'a\nb' }] },
      'lines[0].text: must be one line',
    ],
    ['an empty log frame', { type: 'log', seq: 1, id: 'r', lines: [] }, 'lines: '],
    ['an unknown failure code', { type: 'failure', seq: 1, id: 'r', code: 'oops', message: 'x' }, 'code: '],
    ['a failure without a message', { type: 'failure', seq: 1, id: 'r', code: 'failed', message: '' }, 'message: must say what went wrong'],
    ['an unknown report kind', { type: 'report', seq: 1, payload: { kind: 'weather' } }, 'payload.kind: '],
    [
      'a cpu load above 1',
      {
        type: 'report',
        seq: 1,
        payload: { kind: 'inventory', cpu: 1.5, maxcpu: 1, mem: 0, maxmem: 0, uptime: 0, disk: 0, maxdisk: 0, os: '', kernel: '' },
      },
      'payload.cpu: ',
    ],
    [
      'an event the control plane records itself',
      { type: 'event', seq: 1, event: 'node-down', vmid: 100, timestamp: '2026-05-04T09:31:02Z' },
      'event: ',
    ],
    [
      'an event without a time zone',
      { type: 'event', seq: 1, event: 'vm-start', vmid: 100, timestamp: '2026-05-04T09:31:02' },
      'timestamp: must be an ISO 8601 date-time',
    ],
    ['a vmid below 100', { type: 'event', seq: 1, event: 'vm-start', vmid: 99, timestamp: '2026-05-04T09:31:02Z' }, 'vmid: '],
    [
      'a request for a command name that is not dotted',
      { type: 'request', id: 'r', command: 'reboot', params: {}, timeoutMs: 1000 },
      'command: must be a dotted command name',
    ],
    [
      'a request with a malformed UPID',
      { type: 'request', id: 'r', command: 'node.status', params: {}, timeoutMs: 1000, upid: 'UPID:pve1:1:2:3:x:y:z:' },
      'upid: must be a UPID',
    ],
    [
      'a request with params that are not an object',
      { type: 'request', id: 'r', command: 'node.status', params: [], timeoutMs: 1000 },
      'params: ',
    ],
    ['a request without a timeout', { type: 'request', id: 'r', command: 'node.status', params: {} }, 'timeoutMs: '],
    ['an ack of 0', { type: 'ack', upTo: 0 }, 'upTo: '],
    ['a cancel without the request it stops', { type: 'cancel' }, 'id: '],
  ])('refuses %s, naming the field', (_case, frame, message) => {
    expect(errorOf(parseFrame(frame))).toContain(message);
  });

  it('accepts an unknown command name: the catalog check answers that one (parseCommandRequest)', () => {
    expect(parseFrame({ type: 'request', id: 'r', command: 'node.reboot', params: {}, timeoutMs: 1000 }).ok).toBe(true);
  });

  it.each([[Object.create(null)], [Symbol('frame')], [10n], [() => hello], [new Date()]])('does not throw on %p', (value) => {
    expect(parseFrame(value).ok).toBe(false);
  });
});

describe('parseAgentFrame and parseControlPlaneFrame', () => {
  it('refuse a frame that only the other side sends', () => {
    expect(errorOf(parseAgentFrame(welcome))).toBe(
      "type: 'welcome' is not a frame the agent sends (expected hello, heartbeat, result, failure, log, report, event)",
    );
    expect(errorOf(parseControlPlaneFrame(hello))).toBe(
      "type: 'hello' is not a frame the control plane sends (expected welcome, request, ack, cancel, lease)",
    );
  });

  it('accept the frames of their sender', () => {
    expect(parseAgentFrame(hello)).toStrictEqual({ ok: true, frame: hello });
    expect(parseControlPlaneFrame(welcome)).toStrictEqual({ ok: true, frame: welcome });
  });
});

describe('encodeFrame', () => {
  it('writes the frame as JSON that parses back to it', () => {
    expect(
      parseFrame(
        JSON.parse(encodeFrame({ type: 'hello', protocol: 1, agentVersion: '0.1.0', node: 'pve1', session: 's-1', capabilities: [] })),
      ),
    ).toStrictEqual({
      ok: true,
      frame: { type: 'hello', protocol: 1, agentVersion: '0.1.0', node: 'pve1', session: 's-1', capabilities: [] },
    });
  });

  it('leaves out fields that are not part of the frame', () => {
    const frame = { type: 'ack' as const, upTo: 3, pendingSince: 12 };
    expect(JSON.parse(encodeFrame(frame))).toStrictEqual({ type: 'ack', upTo: 3 });
  });

  it('refuses to send an invalid frame, saying why', () => {
    expect(() => encodeFrame({ type: 'welcome', protocol: 1, node: 'pve1', heartbeatMs: 0, time: '2026-05-04T09:30:12Z' })).toThrow(
      'refusing to send an invalid welcome frame: heartbeatMs: Too small: expected number to be >=100',
    );
  });

  it('refuses a value JSON cannot carry', () => {
    expect(() => encodeFrame({ type: 'result', seq: 1, id: 'r', result: { cpu: Number.NaN } })).toThrow(/invalid result frame: result/);
  });
});
