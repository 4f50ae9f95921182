import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { pino } from 'pino';
import { sha256 } from '../access/auth/authenticator.js';
import type { Upgrade } from '../http/websocket-upgrades.js';
import type { NodesRepository } from '../inventory/nodes/nodes.repository.js';
import { AgentUpgrades, remoteAddress } from './agent-upgrades.js';

const CREDENTIAL = 'c'.repeat(43);

/** An agent's upgrade request with this Authorization header, and what was answered on its socket. */
function upgradeWith(authorization: string | undefined, remote = '192.0.2.10') {
  const answered: string[] = [];
  const request = {
    headers: authorization === undefined ? {} : { authorization },
    socket: { remoteAddress: remote },
  } as unknown as IncomingMessage;
  const socket = { end: (text: string) => void answered.push(text) } as unknown as Duplex;
  const upgrade: Upgrade = {
    request,
    socket,
    head: Buffer.alloc(0),
    match: /^(.*)$/.exec('/agent/v1') as RegExpExecArray,
    query: new URLSearchParams(),
  };
  return { upgrade, answered };
}

/** Node alpha joined with CREDENTIAL; `failing` makes the nodes table unreachable. */
function upgrades(failing = false) {
  const nodes = {
    byCredentialHash: async (hash: string) => {
      if (failing) throw new Error('connection refused');
      return hash === sha256(CREDENTIAL) ? { name: 'alpha' } : null;
    },
  } as unknown as NodesRepository;
  return new AgentUpgrades(nodes, pino({ level: 'silent' }));
}

describe("the agents' upgrades", () => {
  it('takes the node whose credential the request carries', async () => {
    const { upgrade, answered } = upgradeWith(`CorralNode alpha:${CREDENTIAL}`);
    expect(await upgrades().authenticate(upgrade)).toBe('alpha');
    expect(answered).toEqual([]);
  });

  it('refuses with 401 a missing or malformed header, a wrong credential, and the credential of another node', async () => {
    for (const authorization of [
      undefined,
      `Bearer ${CREDENTIAL}`,
      `CorralNode alpha:${'x'.repeat(43)}`,
      `CorralNode beta:${CREDENTIAL}`,
      `CorralNode :${CREDENTIAL}`,
    ]) {
      const { upgrade, answered } = upgradeWith(authorization);
      expect({ authorization, node: await upgrades().authenticate(upgrade) }).toEqual({ authorization, node: null });
      expect(answered).toEqual(['HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n']);
    }
  });

  it('refuses with 503 when the credential cannot be checked', async () => {
    const { upgrade, answered } = upgradeWith(`CorralNode alpha:${CREDENTIAL}`);
    expect(await upgrades(true).authenticate(upgrade)).toBeNull();
    expect(answered).toEqual(['HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n']);
  });

  it("takes the agent's address as it connects from, an IPv4-mapped IPv6 address as the IPv4 address it is", () => {
    expect(remoteAddress(upgradeWith(undefined, '::ffff:192.0.2.10').upgrade)).toBe('192.0.2.10');
    expect(remoteAddress(upgradeWith(undefined, '2001:db8::10').upgrade)).toBe('2001:db8::10');
    expect(remoteAddress(upgradeWith(undefined, '192.0.2.11').upgrade)).toBe('192.0.2.11');
  });
});
