import { FakeAgent, type FakeAgentOptions } from '@corral/testing';
import { call, dataOf } from './access-fixture.js';
import type { TestApp } from './test-app.js';

/** Joins a node through the API (a join token, then the join) and returns its agent's credential. */
export async function joinNode(t: TestApp, node: string, tokenOptions: Record<string, string | number> = {}): Promise<string> {
  const { token } = dataOf<{ token: string }>(await call(t, 'POST', '/cluster/join-tokens', { form: tokenOptions }));
  return dataOf<{ credential: string }>(await call(t, 'POST', '/cluster/join', { form: { token, node }, as: {} })).credential;
}

/** A fake agent of the node, connected and welcomed. */
export async function onlineAgent(
  t: TestApp,
  node: string,
  credential: string,
  options: Partial<FakeAgentOptions> = {},
): Promise<FakeAgent> {
  const agent = await FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node, credential, ...options });
  await agent.hello();
  return agent;
}

/** The events of the outbox, oldest first. */
export async function events(t: TestApp): Promise<{ seq: number; event: string; node: string }[]> {
  const rows = (await t.dataSource.query('SELECT "seq", "event", "node" FROM "events" ORDER BY "seq"')) as {
    seq: string;
    event: string;
    node: string;
  }[];
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}
