import { NODE_NAME_HINT, NODE_NAME_PATTERN } from '@corral/protocol';
import { parseFingerprint } from '@corral/pinned-tls';
import { open } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';

/** What `corral agent join` writes and `corral-agent --config PATH` reads. */
export interface AgentConfig {
  /**
   * The control plane, `https://host:port` (a replica or a load balancer), or several: the agent
   * dials `wss://<host:port>/agent/v1` of the first and goes on to the next when one fails.
   */
  readonly urls: readonly URL[];
  /** SHA-256 fingerprint of the control plane's certificate, `AB:CD:...` (X509Certificate.fingerprint256). */
  readonly fingerprint: string;
  readonly node: string;
  /** The node's secret; never logged. */
  readonly credential: string;
  /** The directory under which host files are read and written; `/` on a real host. */
  readonly hostRoot: string;
  /** Where the agent keeps its own state (the unacknowledged frames); `<hostRoot>/var/lib/corral/agent` by default. */
  readonly stateDir: string;
}

/** A config file that cannot be read or is wrong; the message names the file and the field. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A string field, with "is required" for a missing one. */
const text = () => z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });

const URL_HINT = 'must be an https:// URL such as https://cp.example:8006';

/** `url`: one https:// URL, or a list of up to 16 tried in order; a wrong one is named by its place in the list. */
const controlPlaneUrls = z.unknown().transform((value, context) => {
  const fail = (message: string, path: number[] = []) => {
    context.addIssue({ code: 'custom', message, path });
    return z.NEVER;
  };
  if (value === undefined) return fail('is required');
  const list: unknown = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) return fail('must be an https:// URL or a list of them');
  if (list.length === 0 || list.length > 16) return fail('must name 1 to 16 URLs');
  const urls: URL[] = [];
  for (const [index, text] of list.entries()) {
    if (typeof text !== 'string' || !URL.canParse(text) || new URL(text).protocol !== 'https:')
      return fail(URL_HINT, typeof value === 'string' ? [] : [index]);
    urls.push(new URL(text));
  }
  return urls;
});

const ConfigFile = z.strictObject(
  {
    url: controlPlaneUrls,
    fingerprint: text().transform((value, context) => {
      const fingerprint = parseFingerprint(value);
      if (fingerprint !== undefined) return fingerprint;
      context.addIssue({ code: 'custom', message: 'must be a SHA-256 fingerprint: 32 hex bytes, AB:CD:...' });
      return z.NEVER;
    }),
    node: text().regex(NODE_NAME_PATTERN, NODE_NAME_HINT),
    // Sent in an HTTP header: printable ASCII without blanks. The message never echoes it.
    credential: text().regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without blanks'),
    hostRoot: text().refine(isAbsolute, 'must be an absolute path').optional(),
    stateDir: text().refine(isAbsolute, 'must be an absolute path').optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `'${key}'`).join(', ')}`
        : undefined,
  },
);

export interface LoadedConfig {
  readonly config: AgentConfig;
  /** The file may be read by others than its owner, though it holds the credential (`corral agent join` writes it 0600). */
  readonly readableByOthers: boolean;
}

/** Reads and checks the config file; a ConfigError says what is wrong, naming the field. */
export async function readAgentConfig(path: string): Promise<LoadedConfig> {
  const { content, mode } = await readWithMode(path).catch((error: NodeJS.ErrnoException) => {
    const hint = error.code === 'ENOENT' ? ": join this host first with 'corral agent join <url> --token T --fingerprint F'" : '';
    throw new ConfigError(`config ${path}: ${error.message}${hint}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    // Not the parser's message: it quotes the text around the mistake, which may be the credential.
    throw new ConfigError(`config ${path}: not valid JSON`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`config ${path}: ${problems.join('; ')}`);
  }
  const { url, hostRoot = '/', stateDir, ...rest } = parsed.data;
  return {
    config: Object.freeze({ ...rest, urls: url, hostRoot, stateDir: stateDir ?? join(hostRoot, 'var/lib/corral/agent') }),
    readableByOthers: (mode & 0o077) !== 0,
  };
}

async function readWithMode(path: string): Promise<{ content: string; mode: number }> {
  const handle = await open(path);
  try {
    const [content, stats] = await Promise.all([handle.readFile('utf8'), handle.stat()]);
    return { content, mode: stats.mode };
  } finally {
    await handle.close();
  }
}
