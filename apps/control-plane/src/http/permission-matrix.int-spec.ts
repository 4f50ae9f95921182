import { randomUUID } from 'node:crypto';
import { API_MODULES } from '../app.module.js';
import {
  addGroup,
  addRole,
  addToken,
  addUser,
  apiToken,
  basic,
  call,
  dataOf,
  grant,
  ROOT,
  type Form,
  type Headers,
} from '../../test-support/access-fixture.js';
import { joinNode } from '../../test-support/node-fixture.js';
import { startTestApp, TEST_ROOT_PASSWORD, type TestApp } from '../../test-support/test-app.js';
import { GuestRow } from '../inventory/guests/guest.entity.js';
import { GuestSnapshotRow } from '../guests/snapshots/guest-snapshot.entity.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { JoinTokensRepository } from '../cluster/join-tokens/join-tokens.repository.js';
import { TasksRepository } from '../tasks/tasks.repository.js';
import { EndpointRegistry } from './endpoint-registry.js';

/**
 * Every declared endpoint, called by six kinds of caller, with the status each must get: the
 * permission declarations checked end to end. An endpoint without a row
 * fails the test, so a new endpoint cannot go unchecked.
 */

const CALLERS = ['none', 'root', 'auditor', 'vmuser', 'bareToken', 'scopedToken'] as const;
type Caller = (typeof CALLERS)[number];

const PASSWORD = 'matrix-password';
const BARE_SECRET = '0b6a4f0e-6a43-4b49-9d8f-111111111111';
const SCOPED_SECRET = '0b6a4f0e-6a43-4b49-9d8f-222222222222';
const CREDENTIALS: Record<Caller, Headers> = {
  none: {},
  root: ROOT,
  // PVEAuditor on `/`
  auditor: basic('auditor@pve', PASSWORD),
  // PVEVMUser on `/vms/100` only
  vmuser: basic('vmuser@pve', PASSWORD),
  // root@pam's privilege-separated tokens: one without ACL entries, one with PVEAuditor on `/`
  bareToken: apiToken('root@pam!bare', BARE_SECRET),
  scopedToken: apiToken('root@pam!scoped', SCOPED_SECRET),
};

/** The caller's own user, for endpoints that let users manage themselves. */
const OWN_USER: Record<Caller, string> = {
  none: 'target@pve',
  root: 'root@pam',
  auditor: 'auditor@pve',
  vmuser: 'vmuser@pve',
  bareToken: 'root@pam',
  scopedToken: 'root@pam',
};

interface Row {
  /** The declaration's method and path. */
  readonly endpoint: string;
  readonly request: (c: Caller) => { path: string; form?: Form; query?: string };
  /** Run as root before the caller's request: what the request consumes. */
  readonly setup?: (t: TestApp, c: Caller) => Promise<void>;
  /** Statuses for none, root, auditor, vmuser, bareToken, scopedToken. */
  readonly expect: string;
}

const PUBLIC = '200 200 200 200 200 200';
const ANY_CALLER = '401 200 200 200 200 200';
const ROOT_ONLY = '401 200 403 403 403 403';
const AUDITORS = '401 200 200 403 403 200';
const AUDIT_OFFLINE_NODE = '401 503 503 403 403 503';
const MODIFY_OFFLINE_NODE = '401 503 403 403 403 403';
const MATRIX_TASK = 'UPID:matrix:00000001:00000002:00000003:aptupdate::root@pam:';
// `self` for users; a token is never its own user (PVE), and these tokens lack User.Modify.
/** A guest's reads and power actions for vmuser, who has PVEVMUser on `/vms/100`; the node is offline. */
const VM_USER_AUDIT = '401 200 200 200 403 200';
const VM_USER_POWER = '401 503 403 503 403 403';
const SELF = '401 200 200 200 403 403';
/** An endpoint Corral does not build: 501 where the caller may call it. */
const notBuilt = (expect: string) => expect.replaceAll('200', '501');

/** A join token per caller, created in the row's setup. */
const JOIN_TOKENS = new Map<Caller, string>();
const joinTokenId = (c: Caller) => Buffer.from(c.slice(0, 8).padEnd(8, '-')).toString('hex');

const FIREWALL_RULE = { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '22' };
const addFirewallRule = async (t: TestApp) => void dataOf(await call(t, 'POST', '/nodes/matrix/firewall/rules', { form: FIREWALL_RULE }));
const addFirewallAlias = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', '/nodes/matrix/firewall/aliases', { form: { name: `${prefix}-${c}`, cidr: '192.0.2.3' } }));

/** A pool per caller, made in the row's setup: Pool.Audit is PVEAuditor's, Pool.Allocate only root's here. */
const addPool = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', '/pools', { form: { poolid: `${prefix}-${c}` } }));
/** CT 101 moved into the caller's pool. */
const poolWithGuest = async (t: TestApp, c: Caller) => {
  await addPool('out')(t, c);
  dataOf(await call(t, 'PUT', `/pools/out-${c}`, { form: { vms: '101', 'allow-move': 1 } }));
};

const aclChange = { path: '/vms/100', roles: 'PVEAuditor', users: 'target@pve' };
const aclQuery = new URLSearchParams(aclChange).toString();

/** A directory storage per caller, made in the row's setup (Datastore.Allocate is root's only here). */
const addStorage = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', '/storage', { form: { storage: `${prefix}-${c}`, type: 'dir', path: `/srv/${prefix}-${c}` } }));

/** A backup job per caller, made in the row's setup; its schedule is never due while the test runs. */
const BACKUP_JOB = { schedule: '2199-12-31 23:59', all: 1 };
const addBackupJob = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', '/cluster/backup', { form: { id: `${prefix}-${c}`, ...BACKUP_JOB } }));

/** A disabled metric server per caller, made in the row's setup (so that it is not tried). */
const METRIC_SERVER = { type: 'graphite', server: '192.0.2.7', port: 2003, disable: 1 };
const addMetricServer = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', `/cluster/metrics/server/${prefix}-${c}`, { form: METRIC_SERVER }));

/** A webhook and a matcher per caller, made in the row's setup (Mapping.Modify is root's only here). */
const WEBHOOKS = '/cluster/notifications/endpoints/webhook';
const addWebhook = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', WEBHOOKS, { form: { name: `${prefix}-${c}`, url: 'http://192.0.2.1/hook' } }));
const addMatcher = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', '/cluster/notifications/matchers', { form: { name: `${prefix}-${c}` } }));

/** VM 150, under HA or not as the row needs: apart from the guests whose own rows run power actions and destroys. */
const haGuest = (underHa: boolean) => async (t: TestApp) => {
  if (!(await t.dataSource.manager.exists(GuestRow, { where: { vmid: 150 } })))
    await t.app.get(GuestsRepository).insert({ vmid: 150, type: 'qemu', node: 'matrix', config: {}, lock: null });
  const found = (await call(t, 'GET', '/cluster/ha/resources/vm:150')).status === 200;
  if (underHa && !found) dataOf(await call(t, 'POST', '/cluster/ha/resources', { form: { sid: 'vm:150' } }));
  if (!underHa && found) dataOf(await call(t, 'DELETE', '/cluster/ha/resources/vm:150'));
};
/** An HA group per caller, made in the row's setup (Sys.Console is root's only here). */
const addHaGroup = (prefix: string) => async (t: TestApp, c: Caller) =>
  void dataOf(await call(t, 'POST', '/cluster/ha/groups', { form: { group: `${prefix}-${c}`, nodes: 'matrix' } }));

const ROWS: readonly Row[] = [
  { endpoint: 'GET /version', request: () => ({ path: '/version' }), expect: PUBLIC },
  { endpoint: 'GET /health/live', request: () => ({ path: '/health/live' }), expect: PUBLIC },
  { endpoint: 'GET /health/ready', request: () => ({ path: '/health/ready' }), expect: PUBLIC },
  { endpoint: 'GET /metrics', request: () => ({ path: '/metrics' }), expect: AUDITORS },
  { endpoint: 'GET /openapi.json', request: () => ({ path: '/openapi.json' }), expect: PUBLIC },
  { endpoint: 'GET /access', request: () => ({ path: '/access' }), expect: ANY_CALLER },
  { endpoint: 'GET /access/domains', request: () => ({ path: '/access/domains' }), expect: PUBLIC },
  { endpoint: 'GET /access/domains/{realm}', request: () => ({ path: '/access/domains/pve' }), expect: AUDITORS },
  {
    endpoint: 'POST /access/domains',
    request: (c) => ({ path: '/access/domains', form: { realm: `new-${c}`, type: 'openid' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'PUT /access/domains/{realm}',
    request: () => ({ path: '/access/domains/pve', form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /access/domains/{realm}',
    setup: async (t, c) => void dataOf(await call(t, 'POST', '/access/domains', { form: { realm: `gone-${c}`, type: 'openid' } })),
    request: (c) => ({ path: `/access/domains/gone-${c}` }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'GET /access/ticket', request: () => ({ path: '/access/ticket' }), expect: PUBLIC },
  { endpoint: 'DELETE /access/ticket', request: () => ({ path: '/access/ticket' }), expect: PUBLIC },
  {
    endpoint: 'POST /access/ticket',
    request: () => ({ path: '/access/ticket', form: { username: 'root@pam', password: TEST_ROOT_PASSWORD } }),
    expect: PUBLIC,
  },

  { endpoint: 'GET /access/users', request: () => ({ path: '/access/users' }), expect: ANY_CALLER },
  { endpoint: 'POST /access/users', request: (c) => ({ path: '/access/users', form: { userid: `new-${c}@pve` } }), expect: ROOT_ONLY },
  { endpoint: 'GET /access/users/{userid}', request: () => ({ path: '/access/users/target@pve' }), expect: AUDITORS },
  {
    endpoint: 'PUT /access/users/{userid}',
    request: () => ({ path: '/access/users/target@pve', form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /access/users/{userid}',
    setup: (t, c) => addUser(t, `gone-${c}@pve`),
    request: (c) => ({ path: `/access/users/gone-${c}@pve` }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'PUT /access/password',
    request: () => ({ path: '/access/password', form: { userid: 'target@pve', password: 'another-password' } }),
    expect: ROOT_ONLY,
  },

  { endpoint: 'GET /access/groups', request: () => ({ path: '/access/groups' }), expect: ANY_CALLER },
  { endpoint: 'POST /access/groups', request: (c) => ({ path: '/access/groups', form: { groupid: `new-${c}` } }), expect: ROOT_ONLY },
  { endpoint: 'GET /access/groups/{groupid}', request: () => ({ path: '/access/groups/ops' }), expect: AUDITORS },
  {
    endpoint: 'PUT /access/groups/{groupid}',
    request: () => ({ path: '/access/groups/ops', form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /access/groups/{groupid}',
    setup: (t, c) => addGroup(t, `gone-${c}`),
    request: (c) => ({ path: `/access/groups/gone-${c}` }),
    expect: ROOT_ONLY,
  },

  { endpoint: 'GET /access/roles', request: () => ({ path: '/access/roles' }), expect: ANY_CALLER },
  {
    endpoint: 'POST /access/roles',
    request: (c) => ({ path: '/access/roles', form: { roleid: `New-${c}`, privs: 'VM.Audit' } }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'GET /access/roles/{roleid}', request: () => ({ path: '/access/roles/PVEAuditor' }), expect: ANY_CALLER },
  {
    endpoint: 'PUT /access/roles/{roleid}',
    request: () => ({ path: '/access/roles/Custom', form: { privs: 'VM.Audit,VM.Console' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /access/roles/{roleid}',
    setup: (t, c) => addRole(t, `Gone-${c}`, ['VM.Audit']),
    request: (c) => ({ path: `/access/roles/Gone-${c}` }),
    expect: ROOT_ONLY,
  },

  { endpoint: 'GET /access/acl', request: () => ({ path: '/access/acl' }), expect: ANY_CALLER },
  { endpoint: 'PUT /access/acl', request: () => ({ path: '/access/acl', form: aclChange }), expect: ROOT_ONLY },
  { endpoint: 'POST /access/acl', request: () => ({ path: '/access/acl', form: aclChange }), expect: ROOT_ONLY },
  { endpoint: 'DELETE /access/acl', request: () => ({ path: '/access/acl', query: aclQuery }), expect: ROOT_ONLY },
  { endpoint: 'GET /access/permissions', request: () => ({ path: '/access/permissions' }), expect: ANY_CALLER },

  { endpoint: 'GET /cluster/status', request: () => ({ path: '/cluster/status' }), expect: AUDITORS },
  { endpoint: 'GET /cluster/join-tokens', request: () => ({ path: '/cluster/join-tokens' }), expect: AUDITORS },
  { endpoint: 'POST /cluster/join-tokens', request: () => ({ path: '/cluster/join-tokens', form: { ttl: 60 } }), expect: ROOT_ONLY },
  {
    endpoint: 'DELETE /cluster/join-tokens/{id}',
    setup: (t, c) =>
      t.app
        .get(JoinTokensRepository)
        .insert(
          { id: joinTokenId(c), secretHash: 'x', expire: 4102444800, node: null, replace: false, comment: null, createdBy: 'root@pam' },
          0,
        ),
    request: (c) => ({ path: `/cluster/join-tokens/${joinTokenId(c)}` }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'POST /cluster/join',
    setup: async (t, c) => void JOIN_TOKENS.set(c, dataOf<{ token: string }>(await call(t, 'POST', '/cluster/join-tokens')).token),
    request: (c) => ({ path: '/cluster/join', form: { token: JOIN_TOKENS.get(c) ?? '', node: `joined-${c.toLowerCase()}` } }),
    expect: PUBLIC,
  },
  { endpoint: 'GET /nodes', request: () => ({ path: '/nodes' }), expect: ANY_CALLER },
  { endpoint: 'GET /nodes/{node}', request: () => ({ path: '/nodes/matrix' }), expect: ANY_CALLER },
  // No agent holds the node: a caller who may read it gets 503 (offline), the others 401 or 403 first.
  { endpoint: 'GET /nodes/{node}/status', request: () => ({ path: '/nodes/matrix/status' }), expect: AUDIT_OFFLINE_NODE },
  // The history is read from the database, whether the node is online or not; its graphs are not built.
  { endpoint: 'GET /nodes/{node}/rrddata', request: () => ({ path: '/nodes/matrix/rrddata', query: 'timeframe=hour' }), expect: AUDITORS },
  {
    endpoint: 'GET /nodes/{node}/rrd',
    request: () => ({ path: '/nodes/matrix/rrd', query: 'timeframe=hour&ds=cpu' }),
    expect: notBuilt(AUDITORS),
  },
  { endpoint: 'GET /nodes/{node}/subscription', request: () => ({ path: '/nodes/matrix/subscription' }), expect: AUDITORS },
  { endpoint: 'GET /nodes/{node}/dns', request: () => ({ path: '/nodes/matrix/dns' }), expect: AUDIT_OFFLINE_NODE },
  {
    endpoint: 'PUT /nodes/{node}/dns',
    request: () => ({ path: '/nodes/matrix/dns', form: { search: 'example.com' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  { endpoint: 'GET /nodes/{node}/apt', request: () => ({ path: '/nodes/matrix/apt' }), expect: ANY_CALLER },
  { endpoint: 'GET /nodes/{node}/apt/update', request: () => ({ path: '/nodes/matrix/apt/update' }), expect: MODIFY_OFFLINE_NODE },
  { endpoint: 'POST /nodes/{node}/apt/update', request: () => ({ path: '/nodes/matrix/apt/update' }), expect: MODIFY_OFFLINE_NODE },
  {
    endpoint: 'GET /nodes/{node}/apt/changelog',
    request: () => ({ path: '/nodes/matrix/apt/changelog', query: 'name=curl' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  { endpoint: 'GET /nodes/{node}/disks', request: () => ({ path: '/nodes/matrix/disks' }), expect: ANY_CALLER },
  { endpoint: 'GET /nodes/{node}/disks/list', request: () => ({ path: '/nodes/matrix/disks/list' }), expect: AUDIT_OFFLINE_NODE },
  { endpoint: 'GET /nodes/{node}/disk', request: () => ({ path: '/nodes/matrix/disk' }), expect: AUDIT_OFFLINE_NODE },
  {
    endpoint: 'POST /nodes/{node}/disks/initgpt',
    request: () => ({ path: '/nodes/matrix/disks/initgpt', form: { disk: '/dev/sdb' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/disk',
    request: () => ({ path: '/nodes/matrix/disk', form: { disk: '/dev/sdb' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  // Any caller may list a node's network (PVE): every authenticated caller reaches the offline node.
  { endpoint: 'GET /nodes/{node}/network', request: () => ({ path: '/nodes/matrix/network' }), expect: '401 503 503 503 503 503' },
  { endpoint: 'GET /nodes/{node}/network/{iface}', request: () => ({ path: '/nodes/matrix/network/vmbr0' }), expect: AUDIT_OFFLINE_NODE },
  {
    endpoint: 'POST /nodes/{node}/network',
    request: () => ({ path: '/nodes/matrix/network', form: { iface: 'vmbr9', type: 'bridge' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  { endpoint: 'PUT /nodes/{node}/network', request: () => ({ path: '/nodes/matrix/network' }), expect: MODIFY_OFFLINE_NODE },
  {
    endpoint: 'DELETE /nodes/{node}/network/{iface}',
    request: () => ({ path: '/nodes/matrix/network/vmbr9' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  { endpoint: 'GET /nodes/{node}/scan', request: () => ({ path: '/nodes/matrix/scan' }), expect: AUDIT_OFFLINE_NODE },
  // Datastore.Allocate on /storage, which PVEAuditor lacks.
  { endpoint: 'GET /nodes/{node}/scan/lvm', request: () => ({ path: '/nodes/matrix/scan/lvm' }), expect: MODIFY_OFFLINE_NODE },
  { endpoint: 'GET /nodes/{node}/scan/zfs', request: () => ({ path: '/nodes/matrix/scan/zfs' }), expect: MODIFY_OFFLINE_NODE },
  { endpoint: 'GET /nodes/{node}/tasks', request: () => ({ path: '/nodes/matrix/tasks' }), expect: ANY_CALLER },
  // root@pam's task: its owner and the auditors see it; a token is not its user.
  { endpoint: 'GET /nodes/{node}/tasks/{upid}', request: () => ({ path: `/nodes/matrix/tasks/${MATRIX_TASK}` }), expect: AUDITORS },
  {
    endpoint: 'GET /nodes/{node}/tasks/{upid}/status',
    request: () => ({ path: `/nodes/matrix/tasks/${MATRIX_TASK}/status` }),
    expect: AUDITORS,
  },
  { endpoint: 'GET /nodes/{node}/tasks/{upid}/log', request: () => ({ path: `/nodes/matrix/tasks/${MATRIX_TASK}/log` }), expect: AUDITORS },
  // Its owner, or Sys.Modify on the node (which PVEAuditor lacks).
  { endpoint: 'DELETE /nodes/{node}/tasks/{upid}', request: () => ({ path: `/nodes/matrix/tasks/${MATRIX_TASK}` }), expect: ROOT_ONLY },
  { endpoint: 'GET /cluster/tasks', request: () => ({ path: '/cluster/tasks' }), expect: ANY_CALLER },

  // The node firewall: stored while the node is offline (applied when its agent comes), so root's writes succeed.
  { endpoint: 'GET /nodes/{node}/firewall', request: () => ({ path: '/nodes/matrix/firewall' }), expect: ANY_CALLER },
  { endpoint: 'GET /nodes/{node}/firewall/rules', request: () => ({ path: '/nodes/matrix/firewall/rules' }), expect: AUDITORS },
  {
    endpoint: 'POST /nodes/{node}/firewall/rules',
    request: () => ({ path: '/nodes/matrix/firewall/rules', form: FIREWALL_RULE }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'GET /nodes/{node}/firewall/rules/{pos}',
    setup: addFirewallRule,
    request: () => ({ path: '/nodes/matrix/firewall/rules/0' }),
    expect: AUDITORS,
  },
  {
    endpoint: 'PUT /nodes/{node}/firewall/rules/{pos}',
    setup: addFirewallRule,
    request: () => ({ path: '/nodes/matrix/firewall/rules/0', form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /nodes/{node}/firewall/rules/{pos}',
    setup: addFirewallRule,
    request: () => ({ path: '/nodes/matrix/firewall/rules/0' }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'GET /nodes/{node}/firewall/aliases', request: () => ({ path: '/nodes/matrix/firewall/aliases' }), expect: AUDITORS },
  {
    endpoint: 'POST /nodes/{node}/firewall/aliases',
    request: (c) => ({ path: '/nodes/matrix/firewall/aliases', form: { name: `new-${c}`, cidr: '192.0.2.1' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'GET /nodes/{node}/firewall/aliases/{name}',
    setup: addFirewallAlias('read'),
    request: (c) => ({ path: `/nodes/matrix/firewall/aliases/read-${c}` }),
    expect: AUDITORS,
  },
  {
    endpoint: 'PUT /nodes/{node}/firewall/aliases/{name}',
    setup: addFirewallAlias('edit'),
    request: (c) => ({ path: `/nodes/matrix/firewall/aliases/edit-${c}`, form: { cidr: '192.0.2.2' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /nodes/{node}/firewall/aliases/{name}',
    setup: addFirewallAlias('gone'),
    request: (c) => ({ path: `/nodes/matrix/firewall/aliases/gone-${c}` }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'GET /nodes/{node}/firewall/options', request: () => ({ path: '/nodes/matrix/firewall/options' }), expect: AUDITORS },
  {
    endpoint: 'PUT /nodes/{node}/firewall/options',
    request: () => ({ path: '/nodes/matrix/firewall/options', form: { policy_in: 'REJECT' } }),
    expect: ROOT_ONLY,
  },

  ...tokenRows('tokens', (user, tokenid) => ({ path: `/access/users/${user}/tokens`, form: { tokenid } })),
  ...tokenRows('token', (user, tokenid) => ({ path: `/access/users/${user}/token/${tokenid}` })),

  { endpoint: 'GET /cluster/resources', request: () => ({ path: '/cluster/resources' }), expect: ANY_CALLER },
  // Any caller; each sees only the events it may audit (cluster/events/cluster-events.int-spec.ts).
  { endpoint: 'GET /cluster/events', request: () => ({ path: '/cluster/events' }), expect: ANY_CALLER },
  { endpoint: 'GET /cluster/nextid', request: () => ({ path: '/cluster/nextid' }), expect: ANY_CALLER },
  // Guests on the offline node: VM 100 (vmuser has PVEVMUser on it) and CT 101 (nobody but root and the auditors).
  ...guestRows('qemu', 100, { audit: VM_USER_AUDIT, power: VM_USER_POWER }),
  ...guestRows('lxc', 101, { audit: AUDITORS, power: MODIFY_OFFLINE_NODE }),
  {
    endpoint: 'POST /nodes/{node}/qemu',
    request: () => ({ path: '/nodes/matrix/qemu', form: { vmid: 150 } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/status/suspend',
    request: () => ({ path: '/nodes/matrix/qemu/100/status/suspend' }),
    expect: VM_USER_POWER,
  },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/status/reset',
    request: () => ({ path: '/nodes/matrix/qemu/100/status/reset' }),
    expect: VM_USER_POWER,
  },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/config',
    request: () => ({ path: '/nodes/matrix/qemu/100/config', form: { description: 'matrix' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/clone',
    request: (c) => ({ path: '/nodes/matrix/qemu/100/clone', form: { newid: 300 + CALLERS.indexOf(c) } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/lxc/{vmid}/clone',
    request: (c) => ({ path: '/nodes/matrix/lxc/101/clone', form: { newid: 310 + CALLERS.indexOf(c) } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  { endpoint: 'GET /nodes/{node}/qemu/{vmid}/monitor', request: () => ({ path: '/nodes/matrix/qemu/100/monitor' }), expect: AUDITORS },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/monitor',
    request: () => ({ path: '/nodes/matrix/qemu/100/monitor', form: { command: 'info status' } }),
    expect: AUDIT_OFFLINE_NODE,
  },
  // VM 100 has no cloud-init drive: those allowed get the 409 that says so; vmuser's PVEVMUser has VM.Config.Cloudinit.
  {
    endpoint: 'GET /nodes/{node}/qemu/{vmid}/cloudinit',
    request: () => ({ path: '/nodes/matrix/qemu/100/cloudinit' }),
    expect: VM_USER_AUDIT,
  },
  {
    endpoint: 'PUT /nodes/{node}/qemu/{vmid}/cloudinit',
    request: () => ({ path: '/nodes/matrix/qemu/100/cloudinit' }),
    expect: '401 409 403 409 403 403',
  },
  {
    endpoint: 'GET /nodes/{node}/qemu/{vmid}/cloudinit/dump',
    request: () => ({ path: '/nodes/matrix/qemu/100/cloudinit/dump?type=user' }),
    expect: '401 409 409 409 403 409',
  },
  ...guestAgentRows(),
  { endpoint: 'GET /nodes/{node}/qemu/{vmid}/pending', request: () => ({ path: '/nodes/matrix/qemu/100/pending' }), expect: VM_USER_AUDIT },
  { endpoint: 'GET /nodes/{node}/lxc/{vmid}/pending', request: () => ({ path: '/nodes/matrix/lxc/101/pending' }), expect: AUDITORS },
  // CT 101 is stopped: those who may audit it hear so (409); its node's agent is not asked.
  {
    endpoint: 'GET /nodes/{node}/lxc/{vmid}/interfaces',
    request: () => ({ path: '/nodes/matrix/lxc/101/interfaces' }),
    expect: '401 409 409 403 403 409',
  },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/template',
    request: () => ({ path: '/nodes/matrix/qemu/100/template' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  // VM.Migrate, which only root has here; a migration to the VM's own node is a 400 once allowed.
  { endpoint: 'GET /nodes/{node}/qemu/{vmid}/migrate', request: () => ({ path: '/nodes/matrix/qemu/100/migrate' }), expect: ROOT_ONLY },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/migrate',
    request: () => ({ path: '/nodes/matrix/qemu/100/migrate', form: { target: 'matrix' } }),
    expect: '401 400 403 403 403 403',
  },
  // VM.Config.Disk, which only root has here; a disk the guest lacks is a 400 once allowed, unlinking it changes nothing.
  {
    endpoint: 'PUT /nodes/{node}/qemu/{vmid}/resize',
    request: () => ({ path: '/nodes/matrix/qemu/100/resize', form: { disk: 'scsi9', size: '+1G' } }),
    expect: '401 400 403 403 403 403',
  },
  {
    endpoint: 'PUT /nodes/{node}/lxc/{vmid}/resize',
    request: () => ({ path: '/nodes/matrix/lxc/101/resize', form: { disk: 'mp9', size: '+1G' } }),
    expect: '401 400 403 403 403 403',
  },
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/move_disk',
    request: () => ({ path: '/nodes/matrix/qemu/100/move_disk', form: { disk: 'scsi9', storage: 'local' } }),
    expect: '401 400 403 403 403 403',
  },
  {
    endpoint: 'POST /nodes/{node}/lxc/{vmid}/move_volume',
    request: () => ({ path: '/nodes/matrix/lxc/101/move_volume', form: { volume: 'mp9', storage: 'local' } }),
    expect: '401 400 403 403 403 403',
  },
  {
    endpoint: 'PUT /nodes/{node}/qemu/{vmid}/unlink',
    request: () => ({ path: '/nodes/matrix/qemu/100/unlink', form: { idlist: 'scsi9' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'POST /nodes/{node}/lxc/{vmid}/migrate',
    request: () => ({ path: '/nodes/matrix/lxc/101/migrate', form: { target: 'matrix' } }),
    expect: '401 400 403 403 403 403',
  },
  // VM.Console, which PVEVMUser has and PVEAuditor lacks; a vncwebsocket without the websocket upgrade is a 400 once allowed.
  {
    endpoint: 'POST /nodes/{node}/qemu/{vmid}/vncproxy',
    request: () => ({ path: '/nodes/matrix/qemu/100/vncproxy' }),
    expect: VM_USER_POWER,
  },
  {
    endpoint: 'GET /nodes/{node}/qemu/{vmid}/vncwebsocket',
    request: () => ({ path: '/nodes/matrix/qemu/100/vncwebsocket', query: 'port=5900&vncticket=PVEVNC:00000000::matrix' }),
    expect: '401 400 403 400 403 403',
  },
  {
    endpoint: 'POST /nodes/{node}/lxc',
    request: () => ({ path: '/nodes/matrix/lxc', form: { vmid: 151, ostemplate: 'local:vztmpl/busybox.tar.gz' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/lxc/{vmid}/status/suspend',
    request: () => ({ path: '/nodes/matrix/lxc/101/status/suspend' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/lxc/{vmid}/status/restart',
    request: () => ({ path: '/nodes/matrix/lxc/101/status/restart' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/lxc/{vmid}/status',
    request: () => ({ path: '/nodes/matrix/lxc/101/status', form: { command: 'start' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/lxc/{vmid}/template',
    request: () => ({ path: '/nodes/matrix/lxc/101/template' }),
    expect: MODIFY_OFFLINE_NODE,
  },

  // Storages: definitions need no node; sizes and files come from the offline node's agent.
  { endpoint: 'GET /storage', request: () => ({ path: '/storage' }), expect: ANY_CALLER },
  {
    endpoint: 'POST /storage',
    request: (c) => ({ path: '/storage', form: { storage: `new-${c}`, type: 'dir', path: `/srv/new-${c}` } }),
    expect: ROOT_ONLY,
  },
  // PVE: reading a definition needs Datastore.Allocate.
  { endpoint: 'GET /storage/{storage}', request: () => ({ path: '/storage/local' }), expect: ROOT_ONLY },
  {
    endpoint: 'PUT /storage/{storage}',
    setup: addStorage('edit'),
    request: (c) => ({ path: `/storage/edit-${c}`, form: { shared: 1 } }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'DELETE /storage/{storage}', setup: addStorage('gone'), request: (c) => ({ path: `/storage/gone-${c}` }), expect: ROOT_ONLY },
  { endpoint: 'GET /storage/{storage}/status', request: () => ({ path: '/storage/local/status' }), expect: AUDITORS },
  { endpoint: 'GET /storage/{storage}/content', request: () => ({ path: '/storage/local/content' }), expect: AUDITORS },
  // Callers who may audit `local` reach the offline node; the others get an empty list.
  { endpoint: 'GET /nodes/{node}/storage', request: () => ({ path: '/nodes/matrix/storage' }), expect: '401 503 503 200 200 503' },
  { endpoint: 'GET /nodes/{node}/storage/{storage}', request: () => ({ path: '/nodes/matrix/storage/local' }), expect: AUDITORS },
  {
    endpoint: 'GET /nodes/{node}/storage/{storage}/status',
    request: () => ({ path: '/nodes/matrix/storage/local/status' }),
    expect: AUDIT_OFFLINE_NODE,
  },
  {
    endpoint: 'GET /nodes/{node}/storage/{storage}/rrddata',
    request: () => ({ path: '/nodes/matrix/storage/local/rrddata', query: 'timeframe=day' }),
    expect: AUDITORS,
  },
  {
    endpoint: 'GET /nodes/{node}/storage/{storage}/rrd',
    request: () => ({ path: '/nodes/matrix/storage/local/rrd', query: 'timeframe=day&ds=used' }),
    expect: notBuilt(AUDITORS),
  },
  {
    endpoint: 'GET /nodes/{node}/storage/{storage}/content',
    request: () => ({ path: '/nodes/matrix/storage/local/content' }),
    expect: AUDIT_OFFLINE_NODE,
  },
  {
    endpoint: 'GET /nodes/{node}/storage/{storage}/content/{volume+}',
    request: () => ({ path: '/nodes/matrix/storage/local/content/local:iso/x.iso' }),
    expect: AUDIT_OFFLINE_NODE,
  },
  {
    endpoint: 'DELETE /nodes/{node}/storage/{storage}/content/{volume+}',
    request: () => ({ path: '/nodes/matrix/storage/local/content/iso%2Fx.iso' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /nodes/{node}/vzdump',
    request: () => ({ path: '/nodes/matrix/vzdump', form: { vmid: '100', storage: 'local' } }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'GET /nodes/{node}/vzdump/extractconfig',
    request: () => ({
      path: '/nodes/matrix/vzdump/extractconfig',
      query: 'volume=local:backup/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst',
    }),
    expect: MODIFY_OFFLINE_NODE,
  },
  // Datastore.AllocateTemplate; a form without the file's part is a 400 once allowed.
  {
    endpoint: 'POST /nodes/{node}/storage/{storage}/upload',
    request: () => ({ path: '/nodes/matrix/storage/local/upload', form: { content: 'iso', filename: 'x.iso' } }),
    expect: '401 400 403 403 403 403',
  },
  // Downloads: Datastore.AllocateTemplate and Sys.Audit+Sys.Modify on `/` (or Sys.AccessNetwork on the node), checked before the offline node is reached.
  {
    endpoint: 'POST /nodes/{node}/storage/{storage}/download-url',
    request: () => ({
      path: '/nodes/matrix/storage/local/download-url',
      form: { content: 'iso', filename: 'x.iso', url: 'https://example.com/x.iso' },
    }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'GET /nodes/{node}/query-url-metadata',
    request: () => ({ path: '/nodes/matrix/query-url-metadata', query: 'url=https%3A%2F%2Fexample.com%2Fx.iso' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  { endpoint: 'GET /nodes/{node}/aplinfo', request: () => ({ path: '/nodes/matrix/aplinfo' }), expect: '401 502 502 502 502 502' },
  {
    endpoint: 'POST /nodes/{node}/aplinfo',
    request: () => ({ path: '/nodes/matrix/aplinfo', form: { storage: 'local', template: 'x.tar.zst' } }),
    expect: '401 502 403 403 403 403',
  },
  // Prune: a dry run needs an audit of the storage, a prune Datastore.Allocate (checked before the offline node is reached).
  {
    endpoint: 'GET /nodes/{node}/storage/{storage}/prunebackups',
    request: () => ({ path: '/nodes/matrix/storage/local/prunebackups', query: 'prune-backups=keep-last%3D1' }),
    expect: AUDIT_OFFLINE_NODE,
  },
  {
    endpoint: 'DELETE /nodes/{node}/storage/{storage}/prunebackups',
    request: () => ({ path: '/nodes/matrix/storage/local/prunebackups', query: 'prune-backups=keep-last%3D1' }),
    expect: MODIFY_OFFLINE_NODE,
  },
  {
    endpoint: 'POST /storage/{storage}/prune',
    request: () => ({ path: '/storage/local/prune', form: { 'prune-backups': 'keep-last=1' } }),
    expect: MODIFY_OFFLINE_NODE,
  },

  // Pools: Corral's `/pool` and PVE's `/pools`.
  { endpoint: 'GET /pool', request: () => ({ path: '/pool' }), expect: ANY_CALLER },
  { endpoint: 'POST /pool', request: (c) => ({ path: '/pool', form: { poolid: `new-${c}` } }), expect: ROOT_ONLY },
  { endpoint: 'GET /pool/{poolid}', setup: addPool('read'), request: (c) => ({ path: `/pool/read-${c}` }), expect: AUDITORS },
  {
    endpoint: 'POST /pool/{poolid}',
    setup: addPool('edit'),
    request: (c) => ({ path: `/pool/edit-${c}`, form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'DELETE /pool/{poolid}/{vmid}', setup: poolWithGuest, request: (c) => ({ path: `/pool/out-${c}/101` }), expect: ROOT_ONLY },
  { endpoint: 'GET /pools', request: () => ({ path: '/pools' }), expect: ANY_CALLER },
  { endpoint: 'POST /pools', request: (c) => ({ path: '/pools', form: { poolid: `pve-${c}` } }), expect: ROOT_ONLY },
  {
    endpoint: 'PUT /pools',
    setup: addPool('put'),
    request: (c) => ({ path: '/pools', form: { poolid: `put-${c}`, comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'DELETE /pools', setup: addPool('drop'), request: (c) => ({ path: '/pools', query: `poolid=drop-${c}` }), expect: ROOT_ONLY },
  { endpoint: 'GET /pools/{poolid}', setup: addPool('get'), request: (c) => ({ path: `/pools/get-${c}` }), expect: AUDITORS },
  {
    endpoint: 'PUT /pools/{poolid}',
    setup: addPool('change'),
    request: (c) => ({ path: `/pools/change-${c}`, form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'DELETE /pools/{poolid}', setup: addPool('gone'), request: (c) => ({ path: `/pools/gone-${c}` }), expect: ROOT_ONLY },

  // Backup jobs: Sys.Audit or Sys.Modify on `/` (PVEAuditor has the first only).
  { endpoint: 'GET /cluster/backup', request: () => ({ path: '/cluster/backup' }), expect: AUDITORS },
  {
    endpoint: 'POST /cluster/backup',
    request: (c) => ({ path: '/cluster/backup', form: { id: `new-${c}`, ...BACKUP_JOB } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'GET /cluster/backup/{id}',
    setup: addBackupJob('read'),
    request: (c) => ({ path: `/cluster/backup/read-${c}` }),
    expect: AUDITORS,
  },
  {
    endpoint: 'PUT /cluster/backup/{id}',
    setup: addBackupJob('edit'),
    request: (c) => ({ path: `/cluster/backup/edit-${c}`, form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /cluster/backup/{id}',
    setup: addBackupJob('gone'),
    request: (c) => ({ path: `/cluster/backup/gone-${c}` }),
    expect: ROOT_ONLY,
  },

  // External metric servers and the export: Sys.Audit or Sys.Modify on `/`; the index for anyone.
  { endpoint: 'GET /cluster/metrics', request: () => ({ path: '/cluster/metrics' }), expect: ANY_CALLER },
  { endpoint: 'GET /cluster/metrics/server', request: () => ({ path: '/cluster/metrics/server' }), expect: AUDITORS },
  {
    endpoint: 'POST /cluster/metrics/server/{id}',
    request: (c) => ({ path: `/cluster/metrics/server/new-${c}`, form: METRIC_SERVER }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'GET /cluster/metrics/server/{id}',
    setup: addMetricServer('read'),
    request: (c) => ({ path: `/cluster/metrics/server/read-${c}` }),
    expect: AUDITORS,
  },
  {
    endpoint: 'PUT /cluster/metrics/server/{id}',
    setup: addMetricServer('edit'),
    request: (c) => ({ path: `/cluster/metrics/server/edit-${c}`, form: { port: 2004 } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /cluster/metrics/server/{id}',
    setup: addMetricServer('gone'),
    request: (c) => ({ path: `/cluster/metrics/server/gone-${c}` }),
    expect: ROOT_ONLY,
  },
  { endpoint: 'GET /cluster/metrics/export', request: () => ({ path: '/cluster/metrics/export' }), expect: AUDITORS },

  { endpoint: `GET ${WEBHOOKS}`, request: () => ({ path: WEBHOOKS }), expect: AUDITORS },
  {
    endpoint: `POST ${WEBHOOKS}`,
    request: (c) => ({ path: WEBHOOKS, form: { name: `new-${c}`, url: 'http://192.0.2.1/hook' } }),
    expect: ROOT_ONLY,
  },
  { endpoint: `GET ${WEBHOOKS}/{name}`, setup: addWebhook('read'), request: (c) => ({ path: `${WEBHOOKS}/read-${c}` }), expect: AUDITORS },
  {
    endpoint: `PUT ${WEBHOOKS}/{name}`,
    setup: addWebhook('edit'),
    request: (c) => ({ path: `${WEBHOOKS}/edit-${c}`, form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: `DELETE ${WEBHOOKS}/{name}`,
    setup: addWebhook('gone'),
    request: (c) => ({ path: `${WEBHOOKS}/gone-${c}` }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: `GET ${WEBHOOKS}/{name}/deliveries`,
    setup: addWebhook('sent'),
    request: (c) => ({ path: `${WEBHOOKS}/sent-${c}/deliveries` }),
    expect: AUDITORS,
  },
  { endpoint: 'GET /cluster/notifications/targets', request: () => ({ path: '/cluster/notifications/targets' }), expect: AUDITORS },
  { endpoint: 'GET /cluster/notifications/matchers', request: () => ({ path: '/cluster/notifications/matchers' }), expect: AUDITORS },
  {
    endpoint: 'POST /cluster/notifications/matchers',
    request: (c) => ({ path: '/cluster/notifications/matchers', form: { name: `new-${c}` } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'GET /cluster/notifications/matchers/{name}',
    setup: addMatcher('read'),
    request: (c) => ({ path: `/cluster/notifications/matchers/read-${c}` }),
    expect: AUDITORS,
  },
  {
    endpoint: 'PUT /cluster/notifications/matchers/{name}',
    setup: addMatcher('edit'),
    request: (c) => ({ path: `/cluster/notifications/matchers/edit-${c}`, form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /cluster/notifications/matchers/{name}',
    setup: addMatcher('gone'),
    request: (c) => ({ path: `/cluster/notifications/matchers/gone-${c}` }),
    expect: ROOT_ONLY,
  },

  { endpoint: 'GET /cluster/ha', request: () => ({ path: '/cluster/ha' }), expect: AUDITORS },
  { endpoint: 'GET /cluster/ha/status', request: () => ({ path: '/cluster/ha/status' }), expect: AUDITORS },
  { endpoint: 'GET /cluster/ha/status/current', request: () => ({ path: '/cluster/ha/status/current' }), expect: AUDITORS },
  { endpoint: 'GET /cluster/ha/status/manager_status', request: () => ({ path: '/cluster/ha/status/manager_status' }), expect: AUDITORS },
  { endpoint: 'GET /cluster/ha/resources', request: () => ({ path: '/cluster/ha/resources' }), expect: AUDITORS },
  {
    endpoint: 'POST /cluster/ha/resources',
    setup: haGuest(false),
    request: () => ({ path: '/cluster/ha/resources', form: { sid: 'vm:150' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'GET /cluster/ha/resources/{sid}',
    setup: haGuest(true),
    request: () => ({ path: '/cluster/ha/resources/vm:150' }),
    expect: AUDITORS,
  },
  {
    endpoint: 'PUT /cluster/ha/resources/{sid}',
    setup: haGuest(true),
    request: () => ({ path: '/cluster/ha/resources/vm:150', form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /cluster/ha/resources/{sid}',
    setup: haGuest(true),
    request: () => ({ path: '/cluster/ha/resources/vm:150' }),
    expect: ROOT_ONLY,
  },
  // Root's move of VM 150 (on the offline node) to its own node is a 400 naming `node`: the check after the permission's.
  {
    endpoint: 'POST /cluster/ha/resources/{sid}/migrate',
    setup: haGuest(true),
    request: () => ({ path: '/cluster/ha/resources/vm:150/migrate', form: { node: 'matrix' } }),
    expect: '401 400 403 403 403 403',
  },
  {
    endpoint: 'POST /cluster/ha/resources/{sid}/relocate',
    setup: haGuest(true),
    request: () => ({ path: '/cluster/ha/resources/vm:150/relocate', form: { node: 'matrix' } }),
    expect: '401 400 403 403 403 403',
  },
  { endpoint: 'GET /cluster/ha/groups', request: () => ({ path: '/cluster/ha/groups' }), expect: AUDITORS },
  {
    endpoint: 'POST /cluster/ha/groups',
    request: (c) => ({ path: '/cluster/ha/groups', form: { group: `new-${c}`, nodes: 'matrix' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'GET /cluster/ha/groups/{group}',
    setup: addHaGroup('read'),
    request: (c) => ({ path: `/cluster/ha/groups/read-${c}` }),
    expect: AUDITORS,
  },
  {
    endpoint: 'PUT /cluster/ha/groups/{group}',
    setup: addHaGroup('edit'),
    request: (c) => ({ path: `/cluster/ha/groups/edit-${c}`, form: { comment: 'changed' } }),
    expect: ROOT_ONLY,
  },
  {
    endpoint: 'DELETE /cluster/ha/groups/{group}',
    setup: addHaGroup('gone'),
    request: (c) => ({ path: `/cluster/ha/groups/gone-${c}` }),
    expect: ROOT_ONLY,
  },
];

/**
 * The guest agent of VM 100, whose config does not enable it: once allowed, PVE's `No QEMU guest
 * agent configured` (409). The auditors have VM.GuestAgent.Audit, vmuser's PVEVMUser also
 * VM.GuestAgent.FileSystemMgmt and VM.PowerMgmt; only root has VM.GuestAgent.Unrestricted.
 */
function guestAgentRows(): Row[] {
  const AUDIT = '401 409 409 409 403 409';
  const VM_USER = '401 409 403 409 403 403';
  const UNRESTRICTED = '401 409 403 403 403 403';
  const row = (method: 'GET' | 'POST', command: string, expect: string, form?: Form, query?: string): Row => ({
    endpoint: `${method} /nodes/{node}/qemu/{vmid}/agent/${command}`,
    request: () => ({
      path: `/nodes/matrix/qemu/100/agent/${command}`,
      ...(form !== undefined ? { form } : {}),
      ...(query !== undefined ? { query } : {}),
    }),
    expect,
  });
  return [
    { endpoint: 'GET /nodes/{node}/qemu/{vmid}/agent', request: () => ({ path: '/nodes/matrix/qemu/100/agent' }), expect: ANY_CALLER },
    {
      endpoint: 'POST /nodes/{node}/qemu/{vmid}/agent',
      request: () => ({ path: '/nodes/matrix/qemu/100/agent', form: { command: 'ping' } }),
      expect: UNRESTRICTED,
    },
    row('POST', 'ping', AUDIT),
    ...[
      'info',
      'get-osinfo',
      'get-host-name',
      'get-time',
      'get-timezone',
      'get-users',
      'get-vcpus',
      'get-fsinfo',
      'network-get-interfaces',
    ].map((command) => row('GET', command, AUDIT)),
    row('POST', 'fsfreeze-status', AUDIT),
    ...['fsfreeze-freeze', 'fsfreeze-thaw', 'fstrim', 'shutdown'].map((command) => row('POST', command, VM_USER)),
    row('POST', 'exec', UNRESTRICTED, { command: 'id' }),
    row('GET', 'exec-status', UNRESTRICTED, undefined, 'pid=1'),
  ];
}

/** The endpoints every kind of guest has, on an existing guest of the offline node `matrix`: reads answer, actions find the agent away. */
function guestRows(type: 'qemu' | 'lxc', vmid: number, expect: { audit: string; power: string }): Row[] {
  const base = `/nodes/{node}/${type}`;
  const path = (rest = '') => `/nodes/matrix/${type}/${vmid}${rest}`;
  const power = (action: string): Row => ({
    endpoint: `POST ${base}/{vmid}/status/${action}`,
    request: () => ({ path: path(`/status/${action}`) }),
    expect: expect.power,
  });
  return [
    { endpoint: `GET ${base}`, request: () => ({ path: `/nodes/matrix/${type}` }), expect: ANY_CALLER },
    { endpoint: `GET ${base}/{vmid}`, request: () => ({ path: path() }), expect: expect.audit },
    { endpoint: `DELETE ${base}/{vmid}`, request: () => ({ path: path() }), expect: MODIFY_OFFLINE_NODE },
    { endpoint: `GET ${base}/{vmid}/status`, request: () => ({ path: path('/status') }), expect: expect.audit },
    { endpoint: `GET ${base}/{vmid}/status/current`, request: () => ({ path: path('/status/current') }), expect: expect.audit },
    { endpoint: `GET ${base}/{vmid}/rrddata`, request: () => ({ path: path('/rrddata'), query: 'timeframe=week' }), expect: expect.audit },
    {
      endpoint: `GET ${base}/{vmid}/rrd`,
      request: () => ({ path: path('/rrd'), query: 'timeframe=week&ds=cpu' }),
      expect: notBuilt(expect.audit),
    },
    { endpoint: `GET ${base}/{vmid}/config`, request: () => ({ path: path('/config') }), expect: expect.audit },
    // Stored at once, without the agent; vmuser's PVEVMUser may change the CD-ROM only.
    {
      endpoint: `PUT ${base}/{vmid}/config`,
      request: () => ({ path: path('/config'), form: { description: 'matrix' } }),
      expect: ROOT_ONLY,
    },
    ...['start', 'stop', 'shutdown', 'reboot', 'resume'].map(power),
    ...snapshotRows(type, vmid, expect.audit),
  ];
}

/**
 * The snapshot endpoints on the guest, with its snapshot `matrix` made in the setup: VM.Snapshot
 * is root's only here (the actions then find the agent away), the reads are the auditors' (and
 * vmuser's on VM 100), and a snapshot's index any caller's, as PVE's.
 */
function snapshotRows(type: 'qemu' | 'lxc', vmid: number, audit: string): Row[] {
  const base = `/nodes/{node}/${type}/{vmid}`;
  const path = (rest: string) => `/nodes/matrix/${type}/${vmid}${rest}`;
  const setup = async (t: TestApp) => {
    if (!(await t.dataSource.manager.exists(GuestSnapshotRow, { where: { vmid, name: 'matrix' } }))) {
      await t.dataSource.manager.insert(GuestSnapshotRow, {
        vmid,
        name: 'matrix',
        parent: null,
        description: '',
        snaptime: new Date(),
        vmstate: false,
        config: {},
      });
    }
  };
  return [
    { endpoint: `GET ${base}/snapshot`, request: () => ({ path: path('/snapshot') }), expect: audit },
    {
      endpoint: `POST ${base}/snapshot`,
      request: () => ({ path: path('/snapshot'), form: { snapname: 'fresh' } }),
      expect: MODIFY_OFFLINE_NODE,
    },
    { endpoint: `GET ${base}/snapshot/{snapname}`, setup, request: () => ({ path: path('/snapshot/matrix') }), expect: ANY_CALLER },
    {
      endpoint: `DELETE ${base}/snapshot/{snapname}`,
      setup,
      request: () => ({ path: path('/snapshot/matrix') }),
      expect: MODIFY_OFFLINE_NODE,
    },
    {
      endpoint: `POST ${base}/snapshot/{snapname}/rollback`,
      setup,
      request: () => ({ path: path('/snapshot/matrix/rollback') }),
      expect: MODIFY_OFFLINE_NODE,
    },
    {
      endpoint: `GET ${base}/snapshot/{snapname}/config`,
      setup,
      request: () => ({ path: path('/snapshot/matrix/config') }),
      expect: audit,
    },
    {
      endpoint: `PUT ${base}/snapshot/{snapname}/config`,
      setup,
      request: () => ({ path: path('/snapshot/matrix/config'), form: { description: 'matrix' } }),
      expect: ROOT_ONLY,
    },
    { endpoint: `GET ${base}/feature`, request: () => ({ path: path('/feature'), query: 'feature=snapshot' }), expect: audit },
  ];
}

/** The token API's rows on one of its path forms (Corral's `tokens`, PVE's `token`). */
function tokenRows(segment: 'tokens' | 'token', create: (user: string, tokenid: string) => { path: string; form?: Form }): Row[] {
  const base = `/access/users/{userid}/${segment}`;
  const item = (c: Caller, prefix: string) => `/access/users/${OWN_USER[c]}/${segment}/${prefix}-${segment}-${c}`;
  const existing = (prefix: string) => (t: TestApp, c: Caller) =>
    addToken(t, OWN_USER[c], `${prefix}-${segment}-${c}`, { privsep: true, secret: randomUUID() });
  const rows: Row[] = [
    { endpoint: `GET ${base}`, request: (c) => ({ path: `/access/users/${OWN_USER[c]}/${segment}` }), expect: SELF },
    {
      endpoint: `POST ${segment === 'tokens' ? base : `${base}/{tokenid}`}`,
      request: (c) => create(OWN_USER[c], `new-${segment}-${c}`),
      expect: SELF,
    },
    { endpoint: `GET ${base}/{tokenid}`, setup: existing('read'), request: (c) => ({ path: item(c, 'read') }), expect: SELF },
    {
      endpoint: `PUT ${base}/{tokenid}`,
      setup: existing('edit'),
      request: (c) => ({ path: item(c, 'edit'), form: { comment: 'changed' } }),
      expect: SELF,
    },
    { endpoint: `DELETE ${base}/{tokenid}`, setup: existing('gone'), request: (c) => ({ path: item(c, 'gone') }), expect: SELF },
  ];
  return rows;
}

describe('the permission matrix', () => {
  let t: TestApp;

  beforeAll(async () => {
    // An appliance index nothing listens for: the matrix reads no server outside the test (502 for who may ask).
    t = await startTestApp({ imports: API_MODULES, env: { CORRAL_APLINFO_URL: 'http://127.0.0.1:9/aplinfo.dat' } });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await addUser(t, 'vmuser@pve', { password: PASSWORD });
    await addUser(t, 'target@pve');
    await addGroup(t, 'ops');
    await addRole(t, 'Custom', ['VM.Audit']);
    await addToken(t, 'root@pam', 'bare', { privsep: true, secret: BARE_SECRET });
    await addToken(t, 'root@pam', 'scoped', { privsep: true, secret: SCOPED_SECRET });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'vmuser@pve', roleid: 'PVEVMUser' });
    await grant(t, { path: '/', type: 'token', ugid: 'root@pam!scoped', roleid: 'PVEAuditor' });
    await joinNode(t, 'matrix');
    for (const [vmid, type] of [
      [100, 'qemu'],
      [101, 'lxc'],
    ] as const) {
      await t.app.get(GuestsRepository).insert({ vmid, type, node: 'matrix', config: {}, lock: null });
      await t.app.get(GuestView).reload(vmid);
    }
    await t.app.get(TasksRepository).insert({
      upid: MATRIX_TASK,
      node: 'matrix',
      pid: 1,
      pstart: 2,
      starttime: 3,
      type: 'aptupdate',
      id: '',
      user: 'root@pam',
      replica: 'matrix',
    });
  });
  afterAll(() => t.close());

  it('has a row for every declared endpoint', () => {
    const declared = t.app.get(EndpointRegistry).declarations.map((d) => `${d.method} ${d.path}`);
    expect([...new Set(ROWS.map((row) => row.endpoint))].sort()).toEqual([...new Set(declared)].sort());
  });

  describe.each(ROWS.map((row) => [row.endpoint, row] as const))('%s', (_endpoint, row) => {
    it.each(CALLERS.map((caller, i) => [caller, Number(row.expect.split(' ')[i])] as const))('as %s: %i', async (caller, status) => {
      await row.setup?.(t, caller);
      const { path, form, query } = row.request(caller);
      const method = row.endpoint.split(' ')[0] ?? 'GET';
      const res = await call(t, method, path, { as: CREDENTIALS[caller], ...(form ? { form } : {}), ...(query ? { query } : {}) });
      expect({ status: res.status, body: res.text.slice(0, 300) }).toEqual({ status, body: expect.any(String) });
    });
  });
});
