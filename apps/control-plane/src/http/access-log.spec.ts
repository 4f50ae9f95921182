import Fastify from 'fastify';
import { registerAccessLog } from './access-log.js';
import type { Principal } from './principal.js';

describe('the access-log line', () => {
  const logged = async (url: string, principal?: Principal) => {
    const lines: string[] = [];
    const fastify = Fastify();
    registerAccessLog(fastify, { write: (line) => void lines.push(line) });
    fastify.get('/*', (request, reply) => {
      request.corralPrincipal = principal;
      return reply.code(202).send('{"data":null}');
    });
    const address = await fastify.listen({ host: '127.0.0.1', port: 0 });
    await fetch(`${address}${url}`).then((res) => res.text());
    await fastify.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('}\n')).toBe(true);
    return JSON.parse(lines[0] ?? '') as Record<string, unknown>;
  };

  it('is one JSON object with the request, without its query string', async () => {
    const line = await logged('/api2/json/version?ticket=secret');
    expect(line).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      reqId: expect.any(String),
      client: '127.0.0.1',
      user: null,
      method: 'GET',
      path: '/api2/json/version',
      status: 202,
      bytes: 13,
      ms: expect.any(Number),
    });
  });

  it('quotes what a client chose, as a user name with a quote and a backslash', async () => {
    const principal: Principal = {
      userid: 'o"brien@pve',
      tokenid: 'o"brien@pve!ci\\1',
      method: 'token',
      subject: { kind: 'user', userid: 'o"brien@pve', groups: [] },
    };
    const line = await logged('/api2/json/a%22b/%5C/é', principal);
    expect(line).toMatchObject({ path: '/api2/json/a%22b/%5C/%C3%A9', user: 'o"brien@pve!ci\\1' });
  });
});
