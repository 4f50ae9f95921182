import { AgentProcess, waitFor, type ApiResponse, type ControlPlaneProcess } from '@corral/testing';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export type Form = Record<string, string | number>;

/** The response's `data`, or an error with the status, reason and body. */
export function data<T>(res: ApiResponse): T {
  if (res.status !== 200) throw new Error(`${res.status} ${res.reason}: ${res.text}`);
  return res.json<{ data: T }>().data;
}

/** The API as root@pam, the way a PVE client drives guests: form bodies, and tasks waited for. */
export function guestApi(cp: ControlPlaneProcess, rootPassword: string, patienceMs: number) {
  const asRoot = { authorization: `Basic ${Buffer.from(`root@pam:${rootPassword}`).toString('base64')}` };
  const send = (path: string, method = 'GET', form?: Form) =>
    cp.api.send(path, {
      method,
      headers: { ...asRoot, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form
        ? { body: new URLSearchParams(Object.entries(form).map(([key, value]): [string, string] => [key, String(value)])).toString() }
        : {}),
    });

  /** Waits for the task `upid` of `node`: its exit status, with its log when it failed. */
  const taskEnd = async (node: string, upid: string): Promise<string> => {
    const taskPath = `/nodes/${node}/tasks/${encodeURIComponent(upid)}`;
    let status: { status: string; exitstatus?: string } = { status: 'running' };
    await waitFor(
      async () => {
        status = data(await send(`${taskPath}/status?wait=5`));
        return status.status === 'stopped';
      },
      { timeoutMs: patienceMs, what: `task ${upid}` },
    );
    if (status.exitstatus === 'OK') return 'OK';
    const log = data<{ t: string }[]>(await send(`${taskPath}/log?limit=0`));
    return `${status.exitstatus ?? ''}\n${log.map((line) => line.t).join('\n')}`;
  };

  /** Runs an action on `node` and waits for its task: its exit status, with its log when it failed. */
  const task = async (node: string, path: string, method = 'POST', form?: Form): Promise<string> =>
    taskEnd(node, data<string>(await send(path, method, form)));

  /**
   * Joins `node` with a join token and writes its agent's config file `<dir>/<node>.json`: its host
   * root `<dir>/<node>`, reaching the control plane at `url` (by default this one, on its port: a
   * control plane restarted on the same port is found again). Returns the file's path.
   */
  const joinedAgentConfig = async (dir: string, node: string, url = `https://127.0.0.1:${cp.port}`): Promise<string> => {
    const { token, fingerprint } = data<{ token: string; fingerprint: string }>(await send('/cluster/join-tokens', 'POST', { node }));
    const { credential } = data<{ credential: string }>(await send('/cluster/join', 'POST', { token, node }));
    const config = join(dir, `${node}.json`);
    await mkdir(join(dir, node), { recursive: true });
    await writeFile(config, JSON.stringify({ url, fingerprint, node, credential, hostRoot: join(dir, node) }), { mode: 0o600 });
    return config;
  };

  /**
   * Joins `node` and starts its agent on the native driver, reaching the control plane at `address`
   * (a loopback address of its own lets a firewall rule cut this agent alone).
   */
  const nativeAgent = async (dir: string, node: string, address = '127.0.0.1'): Promise<AgentProcess> =>
    AgentProcess.agent(await joinedAgentConfig(dir, node, `https://${address}:${cp.port}`), { CORRAL_DRIVER: 'native' });

  /** A native agent of `node`, once the node shows online. */
  const onlineNativeAgent = async (dir: string, node: string): Promise<AgentProcess> => {
    const agent = await nativeAgent(dir, node);
    await waitFor(
      async () =>
        data<{ node: string; status: string }[]>(await send('/nodes')).some((entry) => entry.node === node && entry.status === 'online'),
      {
        timeoutMs: patienceMs,
        what: `${node} online`,
      },
    );
    return agent;
  };

  return { asRoot, send, task, taskEnd, joinedAgentConfig, nativeAgent, onlineNativeAgent };
}

/** The guest events recorded so far, in order, as `<event> <vmid>` (`vm-start 100`). */
export async function guestEvents(db: { query: (sql: string) => Promise<{ rows: unknown[] }> }): Promise<string[]> {
  const { rows } = await db.query('SELECT "event", "vmid" FROM "events" WHERE "vmid" IS NOT NULL ORDER BY "seq"');
  return (rows as { event: string; vmid: number }[]).map((row) => `${row.event} ${row.vmid}`);
}

/**
 * Waits until `agent`'s last connection since `sinceMs` (epoch ms) was welcomed and has lasted
 * `quietMs`, by its log. The control plane can still drop a connection during its hello (a liveness
 * check that runs meanwhile takes it for a replaced one; a request sent before the welcome makes
 * the agent close it), so a test that must not lose a request waits for this first.
 */
export function agentSettled(agent: AgentProcess, options: { sinceMs: number; quietMs: number; timeoutMs: number }): Promise<void> {
  return waitFor(
    () => {
      const last = agent.logLines
        .filter(
          (line) => ['connected', 'disconnected'].includes(String(line['msg'])) && Date.parse(String(line['time'])) >= options.sinceMs,
        )
        .at(-1);
      return last?.['msg'] === 'connected' && Date.now() - Date.parse(String(last['time'])) >= options.quietMs;
    },
    { timeoutMs: options.timeoutMs, what: `the agent ${agent.pid} connected for ${options.quietMs} ms` },
  );
}
