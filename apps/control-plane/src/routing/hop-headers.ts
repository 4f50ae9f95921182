import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** Headers of one connection, not of the request or answer it carries (RFC 9110, 7.6.1); Node sets its own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The headers to pass on to the next hop: all but the connection's own (a websocket upgrade keeps `connection` and `upgrade`). */
export function endToEnd(headers: IncomingHttpHeaders, options: { readonly upgrade?: boolean } = {}): OutgoingHttpHeaders {
  const passed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (HOP_BY_HOP.has(name) && !(options.upgrade === true && (name === 'connection' || name === 'upgrade'))) continue;
    passed[name] = value;
  }
  // A body sent in chunks goes on in chunks: Node frames it again.
  if (headers['transfer-encoding'] !== undefined && headers['content-length'] === undefined) passed['transfer-encoding'] = 'chunked';
  return passed;
}
