import { waitFor, type ApiResponse, type ControlPlaneProcess } from '@corral/testing';
import { decodeGo, type GoStruct } from './go-json.js';

/** Form or query parameters as a Go client holds them (`url.Values`; a list repeats the key). */
export type GoParams = Readonly<Record<string, string | number | readonly string[]>>;

/** An error answer as the client reports it: the status, and the text it builds from the reason phrase and body. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    /** The text as the client has it (Telmate's `ApiError.Message`, bpg's reason phrase with details). */
    readonly text: string,
  ) {
    super(`${status} ${text}`);
  }
}

/** What differs between the two Go clients: how they authenticate, read an error body and wait for a task. */
export interface ProviderDialect {
  readonly name: string;
  /** The text of an error answer as the client builds it; throws where the client would fail to read the body (or panic). */
  errorText(res: ApiResponse): string;
  /** Whether the task status answer `data` means the task has ended; throws on a field the client cannot decode or a failed task. */
  taskEnded(data: unknown, upid: string): boolean;
}

/**
 * Go's `url.Values.Encode()`, which both providers use for form bodies and queries: keys sorted,
 * a list's values in order under the same key.
 */
export function encodeGoParams(params: GoParams): string {
  const search = new URLSearchParams();
  for (const key of Object.keys(params).sort()) {
    const value = params[key] as string | number | readonly string[];
    for (const one of typeof value === 'object' ? value : [value]) search.append(key, String(one));
  }
  return search.toString();
}

/** A Terraform provider's HTTP client, replayed: its requests, its decoding of answers and errors, its task waits. */
export class ProviderClient {
  constructor(
    private readonly cp: ControlPlaneProcess,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly dialect: ProviderDialect,
    private readonly patienceMs: number,
  ) {}

  /** Sends one request (GET and DELETE parameters in the query, others as a form) and returns the answer's `data`. */
  async call(method: string, path: string, params?: GoParams): Promise<unknown> {
    const encoded = params === undefined ? '' : encodeGoParams(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    const res = await this.cp.api.send(path, {
      method,
      headers: {
        accept: 'application/json',
        ...this.headers,
        ...(encoded !== '' && !inQuery ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(encoded !== '' && inQuery ? { query: encoded } : {}),
      ...(encoded !== '' && !inQuery ? { body: encoded } : {}),
    });
    if (res.status < 200 || res.status > 299) throw new ProviderError(res.status, this.dialect.errorText(res));
    return res.json<{ data: unknown }>().data;
  }

  /** A GET whose `data` the client decodes as `struct`. */
  async read<T = Record<string, unknown>>(path: string, struct: GoStruct, params?: GoParams): Promise<T> {
    return decodeGo<T>(struct, await this.call('GET', path, params), `${this.dialect.name} GET ${path}`);
  }

  /** Sends a request that starts a task and waits for the task as the client does: its UPID. */
  async task(method: string, path: string, params?: GoParams): Promise<string> {
    const upid = await this.call(method, path, params);
    if (typeof upid !== 'string')
      throw new Error(`${this.dialect.name} ${method} ${path}: expected a UPID string, got ${JSON.stringify(upid)}`);
    await this.waitTask(upid);
    return upid;
  }

  /** Polls the task's status (the UPID raw in the path, as both clients send it) until the client sees it ended. */
  async waitTask(upid: string): Promise<void> {
    const node = upid.split(':')[1] ?? '';
    await waitFor(async () => this.dialect.taskEnded(await this.call('GET', `/nodes/${node}/tasks/${upid}/status`), upid), {
      timeoutMs: this.patienceMs,
      what: `task ${upid}`,
      intervalMs: 200,
    });
  }

  /** The client's error for a request that must fail. */
  async failure(method: string, path: string, params?: GoParams): Promise<ProviderError> {
    try {
      await this.call(method, path, params);
    } catch (error) {
      if (error instanceof ProviderError) return error;
      throw error;
    }
    throw new Error(`${this.dialect.name} ${method} ${path} succeeded, but was expected to fail`);
  }
}
