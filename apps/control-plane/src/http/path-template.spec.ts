import { documentedPath, pathParams, pathPattern, placeholders, restOfPathProblem, routerPath } from './path-template.js';

const VOLUME = '/nodes/{node}/storage/{storage}/content/{volume+}';

describe('path templates', () => {
  it('maps one-segment placeholders to router parameters and a rest-of-path placeholder to the wildcard', () => {
    expect(placeholders(VOLUME)).toEqual(['node', 'storage', 'volume']);
    expect(routerPath(VOLUME)).toBe('/nodes/:node/storage/:storage/content/*');
    expect(documentedPath(VOLUME)).toBe('/nodes/{node}/storage/{storage}/content/{volume}');
    expect(pathParams(VOLUME, { node: 'n', storage: 'local', '*': 'local:iso/x.iso' })).toEqual({
      node: 'n',
      storage: 'local',
      volume: 'local:iso/x.iso',
    });
    expect(pathParams('/nodes/{node}', { node: 'n' })).toEqual({ node: 'n' });
  });

  it('matches the rest of a path with its slashes only for a rest-of-path placeholder', () => {
    expect(pathPattern(VOLUME).test('/nodes/n/storage/local/content/local:iso/x.iso')).toBe(true);
    expect(pathPattern('/nodes/{node}/storage/{storage}/content/{volume}').test('/nodes/n/storage/local/content/local:iso/x.iso')).toBe(
      false,
    );
  });

  it('allows a rest-of-path placeholder only as the last segment, once', () => {
    expect(restOfPathProblem(VOLUME)).toBeNull();
    expect(restOfPathProblem('/things/{rest+}/status')).toContain('must be the last segment');
    expect(restOfPathProblem('/things/{a+}/{b+}')).toContain('must be the last segment');
  });
});
