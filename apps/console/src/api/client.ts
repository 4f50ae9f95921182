/** The API as any client calls it: `/api2/json`, the ticket cookie, and the CSRF token on every change. */
export const API = '/api2/json';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Params = Readonly<Record<string, string | number | boolean | undefined>>;

/** One thing the API said was wrong, with the parameter it names where it names one. */
export interface Problem {
  readonly param?: string;
  readonly message: string;
}

/** A refused call: the status, the API's message, and each problem with the parameter it names. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: readonly Problem[],
  ) {
    super(message);
  }

  /** The message for one parameter, to show beside its field. */
  forParam(param: string): string | undefined {
    return this.problems.find((problem) => problem.param === param)?.message;
  }
}

let csrfToken: string | null = null;
let onUnauthorized: () => void = () => undefined;

/** The CSRF token of the current ticket (null when logged out), and what to do when a call answers 401. */
export function setCredentials(token: string | null, unauthorized: () => void): void {
  csrfToken = token;
  onUnauthorized = unauthorized;
}

export async function call<T>(method: Method, path: string, params: Params = {}): Promise<T> {
  const defined = Object.entries(params).filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined);
  const inQuery = method === 'GET' || method === 'DELETE';
  const query = inQuery && defined.length > 0 ? `?${new URLSearchParams(defined.map(([k, v]) => [k, encode(v)]))}` : '';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers['CSRFPreventionToken'] = csrfToken;
  let body: string | undefined;
  if (!inQuery) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(Object.fromEntries(defined.map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v])));
  }
  const response = await fetch(`${API}${path}${query}`, { method, headers, body, credentials: 'same-origin' });
  const text = await response.text();
  const json = text ? (JSON.parse(text) as { data?: unknown; errors?: unknown; message?: unknown }) : {};
  if (!response.ok) {
    const failure = failureOf(response, json);
    if (response.status === 401) onUnauthorized();
    throw failure;
  }
  return json.data as T;
}

function encode(value: string | number | boolean): string {
  return typeof value === 'boolean' ? String(Number(value)) : String(value);
}

/**
 * Both error shapes the control plane answers: Corral's (`errors: [{ code, param?, message }]`) and
 * PVE's (`errors: { <param>: <message> }` with `message`, or only the reason phrase).
 */
function failureOf(response: Response, json: { errors?: unknown; message?: unknown }): ApiFailure {
  const problems: Problem[] = Array.isArray(json.errors)
    ? (json.errors as Problem[]).map(({ param, message }) => (param === undefined ? { message } : { param, message }))
    : json.errors && typeof json.errors === 'object'
      ? Object.entries(json.errors as Record<string, string>).map(([param, message]) => ({ param, message: message.trim() }))
      : [];
  const message =
    problems.map((problem) => problem.message).join('; ') ||
    (typeof json.message === 'string' ? json.message.trim() : '') ||
    response.statusText ||
    `HTTP ${response.status}`;
  return new ApiFailure(response.status, message, problems);
}
