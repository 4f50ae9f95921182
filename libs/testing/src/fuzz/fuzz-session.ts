import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentProcess } from '../agent-process.js';
import { ControlPlaneProcess } from '../control-plane-process.js';
import type { ApiResponse } from '../https-client.js';
import { waitFor } from '../wait-for.js';
import { apiOperations } from './api-operations.js';
import { fuzzRequest, type FuzzCaller, type FuzzRequest, type KnownIds } from './fuzz-request.js';
import { answerFault } from './fuzz-verdict.js';
import { SeededRandom } from './seeded-random.js';

export interface FuzzOptions {
  readonly seed: number;
  /** How many fuzzed requests to send (the setup's and the final checks' requests are not counted). */
  readonly requests: number;
  /** The control plane's database; its embedded PostgreSQL when absent. */
  readonly databaseUrl?: string;
  /** Called after each request with how many were sent. */
  readonly progress?: (sent: number) => void;
}

export interface FuzzReport {
  readonly seed: number;
  readonly requests: number;
  readonly operations: number;
  /** How many answers had each status (0: the connection closed without one). */
  readonly statuses: Readonly<Record<number, number>>;
  /** How many 5xx answers the run does not accept (`ACCEPTED_SERVER_ERRORS`): each is also a fault. */
  readonly serverErrors: number;
  /** Every defect found: a 5xx or a leak (with its request), a guest left locked, an error in the control plane's log. */
  readonly faults: readonly string[];
}

const ROOT_PASSWORD = 'fuzz-root-password';
const USER_PASSWORD = 'fuzz-nobody-password';
const NODE = 'host1';
/** How long setup steps and the end of the run's tasks may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 120_000;
/** Node's limit on a request's line and headers. */
const MAX_HEADER_BYTES = 16 * 1024;
/**
 * Endpoints whose agent command acts on the machine the test runs on rather than on the sim
 * driver or the agent's host root: apt (the real index, slow to read on a busy machine, and
 * changelogs from the internet), the network's apply (`ifreload`), the firewall (`nft`), disks
 * (`sgdisk`). Only the caller without privileges sends them, so their parameters are decoded and
 * refused and nothing runs.
 */
const ON_THE_REAL_MACHINE =
  /^(?:GET \/nodes\/\{node\}\/apt\/(?:changelog|update)$|(?:POST|PUT|DELETE) \/nodes\/\{node\}\/(?:apt|network|firewall|disks?)(?:\/|$))/;
// Their answers never end (event streams) or upgrade to a websocket: nothing a request-and-answer fuzzer can judge.
const STREAMING_PATHS = /\/(?:events|vncwebsocket|termproxy-websocket|agents\/connect)$|^\/cluster\/events/;

/**
 * A fuzz run: the built control plane with a sim agent on node `host1`, a few guests, a storage,
 * a pool, a user and a token made first; then `requests` requests drawn from the OpenAPI document
 * the control plane serves (`fuzz-request.ts`), each endpoint in turn, as root (ticket), as a user
 * without any ACL (ticket) and as root's API token; then every guest's config is read for a lock
 * left behind, and the control plane's log for errors. Everything it started is stopped and removed.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const root = await mkdtemp(join(tmpdir(), 'corral-fuzz-'));
  let cp: ControlPlaneProcess | undefined;
  let agent: AgentProcess | undefined;
  try {
    cp = await ControlPlaneProcess.start({
      env: {
        CORRAL_ROOT_PASSWORD: ROOT_PASSWORD,
        CORRAL_LOCAL_AGENT: '0',
        ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
      },
    });
    const setup = setupApi(cp);
    agent = await joinSimAgent(cp, setup, root);
    const known = await makeFixtures(setup, root);
    const callers = await makeCallers(setup);
    const unprivileged = callers.find((caller) => caller.name === 'nobody') as FuzzCaller;
    const operations = apiOperations(setup.json(await setup.send('GET', '/openapi.json'))).filter(
      (operation) => !STREAMING_PATHS.test(operation.path),
    );
    const random = new SeededRandom(options.seed);
    const statuses: Record<number, number> = {};
    const faults: string[] = [];
    let serverErrors = 0;
    for (let sent = 0; sent < options.requests; sent++) {
      const operation = operations[sent % operations.length];
      if (!operation) break;
      const caller = ON_THE_REAL_MACHINE.test(`${operation.method} ${operation.path}`) ? unprivileged : random.pick(callers);
      const request = fuzzRequest(operation, caller, known, random);
      const res = await send(cp, request);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const fault = res.status === 0 ? unanswered(request, res.text) : answerFault(res.status, res.text);
      if (fault) faults.push(`${describe(request)} -> ${fault}`);
      if (fault && res.status >= 500) serverErrors += 1;
      options.progress?.(sent + 1);
    }
    faults.push(...(await lockedGuests(setup)), ...logErrors(cp));
    return { seed: options.seed, requests: options.requests, operations: operations.length, statuses, serverErrors, faults };
  } finally {
    await agent?.kill();
    await cp?.stop();
    await rm(root, { recursive: true, force: true });
    if (cp) await rm(cp.dataDir, { recursive: true, force: true });
  }
}

type SetupApi = ReturnType<typeof setupApi>;

/** Root's requests for the setup and the final checks: a form body, the answer's `data` or an error. */
function setupApi(cp: ControlPlaneProcess) {
  const asRoot = { authorization: `Basic ${Buffer.from(`root@pam:${ROOT_PASSWORD}`).toString('base64')}` };
  const send = (method: string, path: string, form?: Record<string, string | number>) =>
    cp.api.send(path, {
      method,
      headers: { ...asRoot, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, String(v)])).toString() } : {}),
    });
  const json = <T>(res: ApiResponse): T => {
    if (res.status !== 200) throw new Error(`fuzz setup: ${res.status} ${res.reason}: ${res.text}`);
    return res.json<T>();
  };
  const data = async <T>(method: string, path: string, form?: Record<string, string | number>): Promise<T> =>
    json<{ data: T }>(await send(method, path, form)).data;
  /** Waits for the task an action started to end, and fails unless it ended `OK`. */
  const task = async (path: string, form?: Record<string, string | number>): Promise<void> => {
    const upid = await data<string>('POST', path, form);
    let status: { status: string; exitstatus?: string } = { status: 'running' };
    await waitFor(
      async () => {
        status = await data('GET', `/nodes/${NODE}/tasks/${encodeURIComponent(upid)}/status`);
        return status.status === 'stopped';
      },
      { timeoutMs: PATIENCE_MS, what: `fuzz setup task ${upid}` },
    );
    if (status.exitstatus !== 'OK') throw new Error(`fuzz setup: ${path} ended ${status.exitstatus ?? ''}`);
  };
  return { send, json, data, task };
}

async function joinSimAgent(cp: ControlPlaneProcess, api: SetupApi, root: string): Promise<AgentProcess> {
  const { token, fingerprint } = await api.data<{ token: string; fingerprint: string }>('POST', '/cluster/join-tokens', { node: NODE });
  const { credential } = await api.data<{ credential: string }>('POST', '/cluster/join', { token, node: NODE });
  const config = join(root, `${NODE}.json`);
  await mkdir(join(root, NODE));
  await writeFile(
    config,
    JSON.stringify({ url: `https://127.0.0.1:${cp.port}`, fingerprint, node: NODE, credential, hostRoot: join(root, NODE) }),
    { mode: 0o600 },
  );
  const agent = AgentProcess.agent(config, { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: '0' });
  await waitFor(async () => (await api.data<{ node: string; status: string }[]>('GET', '/nodes')).some((n) => n.status === 'online'), {
    timeoutMs: PATIENCE_MS,
    what: `${NODE} online`,
  });
  return agent;
}

/**
 * Two VMs (one running), a container, a storage, a pool, a user with a token, a group: the ids
 * path parameters are filled with, and with a few free ones (`newid`, `snapname`), what plausible
 * parameters get.
 */
async function makeFixtures(api: SetupApi, root: string): Promise<KnownIds> {
  await api.task(`/nodes/${NODE}/qemu`, { vmid: 100, name: 'fuzz-vm', memory: 64, scsi0: 'local:0.0625' });
  await api.task(`/nodes/${NODE}/qemu`, { vmid: 101, name: 'fuzz-running', memory: 64, scsi0: 'local:0.0625' });
  await api.task(`/nodes/${NODE}/qemu/101/status/start`);
  const template = join(root, NODE, 'var/lib/vz/template/cache');
  await mkdir(template, { recursive: true });
  await writeFile(join(template, 'fuzz.tar.gz'), '');
  await api.task(`/nodes/${NODE}/lxc`, { vmid: 200, hostname: 'fuzz-ct', ostemplate: 'local:vztmpl/fuzz.tar.gz', rootfs: 'local:0.0625' });
  await api.data('POST', '/storage', { storage: 'fuzzdir', type: 'dir', path: '/srv/fuzz', content: 'images,iso,backup' });
  await api.data('POST', '/pools', { poolid: 'fuzzpool' });
  await api.data('POST', '/access/users', { userid: 'fuzzer@pve', password: 'fuzz-fixture-password' });
  await api.data('POST', '/access/users/fuzzer@pve/token/fuzztoken', {});
  await api.data('POST', '/access/groups', { groupid: 'fuzzgroup' });
  return {
    node: [NODE],
    vmid: ['100', '101', '200'],
    storage: ['local', 'fuzzdir'],
    poolid: ['fuzzpool'],
    userid: ['fuzzer@pve'],
    tokenid: ['fuzztoken'],
    groupid: ['fuzzgroup'],
    roleid: ['PVEAuditor', 'Administrator'],
    realm: ['pve', 'pam'],
    volume: ['local:100/vm-100-disk-0.raw', 'fuzzdir:iso/none.iso'],
    snapname: ['fuzzsnap'],
    newid: ['150', '151'],
    target: [NODE],
    pool: ['fuzzpool'],
    groups: ['fuzzgroup'],
    sid: ['vm:100'],
    iface: ['eth0'],
  };
}

/**
 * The three callers: root with a ticket, `nobody@pve` (no ACL at all) with a ticket, and root's API
 * token `fuzzcaller` (not privilege-separated). None of them is among the ids the fuzzer fills in,
 * so no fuzzed request can delete or lock out a caller.
 */
async function makeCallers(api: SetupApi): Promise<FuzzCaller[]> {
  await api.data('POST', '/access/users', { userid: 'nobody@pve', password: USER_PASSWORD });
  const { value } = await api.data<{ value: string }>('POST', '/access/users/root@pam/token/fuzzcaller', { privsep: 0 });
  const ticket = async (name: string, username: string, password: string): Promise<FuzzCaller> => {
    const login = await api.data<{ ticket: string; CSRFPreventionToken: string }>('POST', '/access/ticket', { username, password });
    const read = { cookie: `PVEAuthCookie=${encodeURIComponent(login.ticket)}` };
    return { name, read, write: { ...read, csrfpreventiontoken: login.CSRFPreventionToken } };
  };
  const token = { authorization: `PVEAPIToken=root@pam!fuzzcaller=${value}` };
  return [
    await ticket('root', 'root@pam', ROOT_PASSWORD),
    await ticket('nobody', 'nobody@pve', USER_PASSWORD),
    { name: 'token', read: token, write: token },
  ];
}

/**
 * The answer, or status 0 with the client's error when the connection closed without one twice:
 * once may be a kept-alive connection the server closed after its previous answer (a 413 or 431
 * closes it), which the client only learns by writing to it.
 */
async function send(cp: ControlPlaneProcess, request: FuzzRequest, retry = true): Promise<Pick<ApiResponse, 'status' | 'text'>> {
  try {
    return await cp.api.send(request.path, {
      method: request.method,
      headers: request.headers,
      ...(request.query ? { query: request.query } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
  } catch (error) {
    return retry ? send(cp, request, false) : { status: 0, text: (error as Error).message };
  }
}

/**
 * Node's HTTP server answers a request line and headers longer than its limit (16 KiB) with 431
 * and closes the connection, which the client may see as a reset while it still writes: only then
 * is a connection closed without an answer not a fault.
 */
function unanswered(request: FuzzRequest, why: string): string | null {
  return request.path.length + request.query.length > MAX_HEADER_BYTES ? null : `no answer: ${why}`;
}

/** A request in one line, long values cut, for a fault's report. */
function describe(request: FuzzRequest): string {
  const cut = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}...(${text.length} chars)` : text);
  const body = request.body === undefined ? '' : ` ${request.headers['content-type'] ?? ''} ${cut(request.body.toString())}`;
  return `${request.method} ${cut(request.path)}${request.query ? `?${cut(request.query)}` : ''}${body}`;
}

/** Waits for every task to end, then names each guest whose config still holds a lock. */
async function lockedGuests(api: SetupApi): Promise<string[]> {
  await waitFor(async () => (await api.data<unknown[]>('GET', `/nodes/${NODE}/tasks?source=active`)).length === 0, {
    timeoutMs: PATIENCE_MS,
    what: 'the fuzzed tasks to end',
  });
  const guests = await api.data<{ node: string; type: string; vmid: number }[]>('GET', '/cluster/resources?type=vm');
  const locked: string[] = [];
  for (const guest of guests) {
    const config = await api.data<{ lock?: string }>('GET', `/nodes/${guest.node}/${guest.type}/${guest.vmid}/config`);
    if (config.lock !== undefined) locked.push(`${guest.type} ${guest.vmid} is left locked (${config.lock})`);
  }
  return locked;
}

/** The control plane's log lines at level error or above (pino's 50): an uncaught error is logged there. */
function logErrors(cp: ControlPlaneProcess): string[] {
  return cp.output.filter((line) => {
    try {
      return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50;
    } catch {
      return /error/i.test(line);
    }
  });
}
