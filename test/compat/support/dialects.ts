import type { ApiResponse, ControlPlaneProcess } from '@corral/testing';
import { decodeGo } from './go-json.js';
import { ProviderClient, type ProviderDialect } from './provider-client.js';

/** The JSON object of an error answer, or undefined when the body is not one. */
function errorBody(res: ApiResponse): Record<string, unknown> | undefined {
  try {
    const body: unknown = res.json();
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * bpg/terraform-provider-proxmox (`proxmox/api/client.go`, `validateResponseCode`): the reason
 * phrase, then the body decoded as `{errors: map[string]string, message: string}`, each error as
 * `key: text`; tasks by `GetTaskStatusResponseData` (`pid` int, `status`, `exitstatus` strings),
 * ended when the status is no longer `running`, failed unless the exit status is `OK`.
 */
export const BPG: ProviderDialect = {
  name: 'bpg',
  errorText(res) {
    const body = decodeGo<{ errors?: Record<string, unknown>; message?: string }>(
      { fields: { errors: 'object', message: 'string' } },
      errorBody(res) ?? {},
      `bpg error body of ${res.status}`,
    );
    const errors = Object.entries(body.errors ?? {}).map(([key, text]) => {
      if (typeof text !== 'string')
        throw new Error(`bpg error body of ${res.status}: errors.${key} is ${JSON.stringify(text)}, not a string (map[string]string)`);
      return `${key}: ${text.trimEnd()}`;
    });
    const message = (body.message ?? '').split('\n').filter((line) => line !== '' && !line.startsWith(res.reason));
    const details = [...errors, ...message];
    return details.length > 0 ? `${res.reason} (${details.join(' - ')})` : res.reason;
  },
  taskEnded(data, upid) {
    const status = decodeGo<{ status?: string; exitstatus?: string }>(
      { fields: { pid: 'int', status: 'string', exitstatus: 'string' } },
      data,
      `bpg task ${upid}`,
    );
    if (status.status === 'running') return false;
    if (status.exitstatus !== 'OK') throw new Error(`bpg: task ${upid} failed: ${status.exitstatus ?? ''}`);
    return true;
  },
};

/**
 * Telmate/proxmox-api-go (`proxmox/session.go`, `Session.do`): an error body that is a JSON object
 * has `errors` asserted to `map[string]any` and `message` to `string`, unchecked (anything else
 * panics the provider); tasks by `GetTaskExitstatus`: `data` asserted to a map, ended once
 * `exitstatus` is there (a string), failed unless it starts with `OK` or `WARNINGS`.
 */
export const TELMATE: ProviderDialect = {
  name: 'Telmate',
  errorText(res) {
    const body = errorBody(res);
    if (body === undefined) return res.reason;
    const decoded = decodeGo<{ message?: string }>(
      { fields: { errors: 'object', message: 'string' } },
      body,
      `Telmate error body of ${res.status} (an unchecked assertion panics)`,
    );
    return decoded.message?.trimEnd() ?? '';
  },
  taskEnded(data, upid) {
    const status = decodeGo<{ exitstatus?: string }>({ fields: { exitstatus: 'string' } }, data, `Telmate task ${upid}`);
    if (status.exitstatus === undefined) return false;
    if (!/^(OK|WARNINGS)/.test(status.exitstatus)) throw new Error(`Telmate: task ${upid} failed: ${status.exitstatus}`);
    return true;
  },
};

/** bpg with an API token (`api_token = "root@pam!terraform=..."`), created here as root@pam. */
export async function bpgClient(cp: ControlPlaneProcess, rootPassword: string, patienceMs: number): Promise<ProviderClient> {
  const basic = { authorization: `Basic ${Buffer.from(`root@pam:${rootPassword}`).toString('base64')}` };
  const created = await cp.api.send('/access/users/root@pam/token/terraform', {
    method: 'POST',
    headers: { ...basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'privsep=0',
  });
  if (created.status !== 200) throw new Error(`token: ${created.status} ${created.text}`);
  const { value } = created.json<{ data: { value: string } }>().data;
  return new ProviderClient(cp, { authorization: `PVEAPIToken=root@pam!terraform=${value}` }, BPG, patienceMs);
}

/** Telmate with `pm_user`/`pm_password`: a ticket from `POST /access/ticket`, read as `Session.Login` reads it. */
export async function telmateClient(cp: ControlPlaneProcess, rootPassword: string, patienceMs: number): Promise<ProviderClient> {
  const res = await cp.api.send('/access/ticket', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: rootPassword, username: 'root@pam' }).toString(),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${res.text}`);
  const login = decodeGo<{ ticket: string; CSRFPreventionToken: string }>(
    { fields: { ticket: 'string', CSRFPreventionToken: 'string', username: 'string' } },
    res.json<{ data: unknown }>().data,
    'Telmate login',
  );
  return new ProviderClient(
    cp,
    { cookie: `PVEAuthCookie=${login.ticket}`, csrfpreventiontoken: login.CSRFPreventionToken },
    TELMATE,
    patienceMs,
  );
}
