import { API_PREFIX } from '../http/endpoint-registry.js';

const NODE_PATH = new RegExp(`^${API_PREFIX}/nodes/([^/?]+)(?:[/?]|$)`);

/** The node a request's URL names (`/api2/json/nodes/{node}/...`), decoded; null for any other path or a malformed name. */
export function nodeOfPath(url: string): string | null {
  const match = NODE_PATH.exec(url);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
