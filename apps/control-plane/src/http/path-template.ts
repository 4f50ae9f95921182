/*
 * The path templates of endpoint declarations. `{name}` stands for one path segment; `{name+}`,
 * only as the last segment, for the rest of the path with its `/`s. PVE mounts some handlers
 * that way: `.../storage/{storage}/content/{volume}` takes the rest of the URI as the volume id,
 * so `content/local:iso/x.iso` and `content/local:iso%2Fx.iso` name the same volume.
 */

const PLACEHOLDER = /\{([^}+]+)(\+?)\}/g;
/** The router's name of the rest of a path (find-my-way's wildcard). */
const ROUTER_REST = '*';

/** The names of a template's placeholders, in order. */
export function placeholders(path: string): string[] {
  return [...path.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

const restOfPaths = new Map<string, string | undefined>();

/** The name of the template's rest-of-path placeholder, if it has one; worked out once per template. */
export function restOfPath(path: string): string | undefined {
  if (!restOfPaths.has(path)) restOfPaths.set(path, [...path.matchAll(PLACEHOLDER)].find((match) => match[2] === '+')?.[1]);
  return restOfPaths.get(path);
}

/** What is wrong with a template's rest-of-path placeholder (it must end the path, and be the only one); null when nothing is. */
export function restOfPathProblem(path: string): string | null {
  const rest = [...path.matchAll(PLACEHOLDER)].filter((match) => match[2] === '+');
  if (rest.length === 0) return null;
  if (rest.length > 1 || !path.endsWith(`/${rest[0]?.[0] ?? ''}`))
    return `a rest-of-path placeholder {name+} must be the last segment, and the only one`;
  return null;
}

/** The router's form: `{node}` is `:node`, `{volume+}` the wildcard. */
export function routerPath(path: string): string {
  return path.replace(PLACEHOLDER, (_, name: string, rest: string) => (rest === '+' ? ROUTER_REST : `:${name}`));
}

/** The OpenAPI form, which has no rest-of-path placeholders: `{volume+}` is `{volume}`. */
export function documentedPath(path: string): string {
  return path.replace(PLACEHOLDER, '{$1}');
}

/** A pattern that matches the paths of a template (below the API prefix), to tell a wrong method from an unknown path. */
export function pathPattern(path: string): RegExp {
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part, i) => (i % 2 === 1 ? (part.endsWith('+}') ? '.+' : '[^/]+') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

/** The path parameters the router found, named as the template names them (its wildcard as the rest-of-path placeholder). */
export function pathParams(path: string, params: Readonly<Record<string, string>>): Record<string, string> {
  const rest = restOfPath(path);
  if (rest === undefined || !(ROUTER_REST in params)) return { ...params };
  const { [ROUTER_REST]: value = '', ...named } = params;
  return { ...named, [rest]: value };
}
