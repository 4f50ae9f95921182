/** One request to the API, as a command stands for it; parameters left undefined are not sent. */
export interface ApiCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to /api2/json, path segments already percent-encoded. */
  readonly path: string;
  /** A list is sent as the key repeated (PVE's request decoding). */
  readonly params: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** How a POST or PUT carries the params: a form as PVE clients send them (the default), or a JSON object. */
  readonly body?: 'form' | 'json';
}
