import { parseServerSentEvents, type ServerSentEvent } from './server-sent-events.js';

async function parse(...chunks: string[]): Promise<ServerSentEvent[]> {
  const messages: ServerSentEvent[] = [];
  for await (const message of parseServerSentEvents(
    (async function* () {
      yield* chunks;
    })(),
  ))
    messages.push(message);
  return messages;
}

describe('reading a text/event-stream (WHATWG HTML 9.2.6)', () => {
  it('gives each message its fields, however the chunks cut the lines', async () => {
    const stream = 'retry: 3000\nid: 41\n\n:\n\nid: 42\nevent: vm-start\ndata: {"seq":42}\n\nid: 43\nevent: vm-stop\ndata: {"seq":43}\n\n';
    const whole = await parse(stream);
    expect(whole).toEqual([
      { id: '41' },
      { id: '42', event: 'vm-start', data: '{"seq":42}' },
      { id: '43', event: 'vm-stop', data: '{"seq":43}' },
    ]);
    expect(await parse(...(stream.match(/.{1,5}/gs) ?? []))).toEqual(whole);
  });

  it('joins data lines, takes CRLF line ends, a value without its one leading space and a field without a colon', async () => {
    expect(await parse('data: a\r\ndata:  b\r\nevent\r\n\r\n')).toEqual([{ data: 'a\n b', event: '' }]);
  });

  it('leaves out comments and a message that is not finished by a blank line', async () => {
    expect(await parse(': heartbeat\n\n', 'id: 7\ndata: x')).toEqual([]);
  });
});
