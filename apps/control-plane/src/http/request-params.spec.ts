import { z } from 'zod';
import { ApiError } from '../errors/api-error.js';
import { endpoint } from './endpoint.js';
import { booleanParam, integerParam, listParam, stringParam } from './params.js';
import { decodeParams } from './request-params.js';

const declaration = endpoint({
  method: 'POST',
  path: '/nodes/{node}/things',
  summary: 'test',
  parameters: z.object({
    node: stringParam({ description: 'node', pattern: /^[a-z][a-z0-9-]*$/, patternHint: 'must be a node name' }),
    vmid: integerParam({ description: 'id', min: 100 }),
    full: booleanParam({ description: 'flag' }).optional(),
    vms: listParam(integerParam({ description: 'id' }), { description: 'ids' }).optional(),
    comment: stringParam({ description: 'free text' }).optional(),
    tags: listParam(stringParam({ description: 'tag' }), { description: 'tags' }).optional(),
  }),
  returns: z.null(),
  permission: { kind: 'public' },
});

function problems(request: { params?: unknown; query?: unknown; body?: unknown }) {
  try {
    decodeParams(declaration, request);
  } catch (error) {
    if (error instanceof ApiError) return error.details.problems;
    throw error;
  }
  throw new Error('expected a validation failure');
}

describe('decodeParams', () => {
  it('decodes form strings: integers, 0/1 booleans, lists of integers', () => {
    expect(decodeParams(declaration, { params: { node: 'pve1' }, body: { vmid: '100', full: '1', vms: ['101', '102'] } })).toEqual({
      node: 'pve1',
      vmid: 100,
      full: true,
      vms: [101, 102],
    });
  });

  it('accepts JSON numbers and booleans, and wraps a single list value', () => {
    expect(decodeParams(declaration, { params: { node: 'pve1' }, body: { vmid: 100, full: false, vms: 7 } })).toEqual({
      node: 'pve1',
      vmid: 100,
      full: false,
      vms: [7],
    });
  });

  it('lets the query override the body and ignores _dc', () => {
    expect(decodeParams(declaration, { params: { node: 'n' }, body: { vmid: '100' }, query: { vmid: '200', _dc: '1' } })).toEqual({
      node: 'n',
      vmid: 200,
    });
  });

  it('accepts the path value repeated in the body, as Ansible sends it', () => {
    expect(decodeParams(declaration, { params: { node: 'n' }, body: { node: 'n', vmid: '100' } })).toEqual({ node: 'n', vmid: 100 });
  });

  it('refuses control characters in any string, a NUL above all, and keeps tabs and line breaks', () => {
    expect(
      problems({ params: { node: 'n' }, body: { vmid: '100', comment: 'a\u0000b' }, query: { tags: ['ok', 'esc\u001b[0m'] } }),
    ).toEqual([
      { param: 'comment', message: "parameter 'comment': must not contain control characters other than tab and line breaks" },
      { param: 'tags', message: "parameter 'tags': must not contain control characters other than tab and line breaks" },
    ]);
    expect(problems({ params: { node: 'n\u0000' }, body: { vmid: '100' } })).toEqual([
      { param: 'node', message: "parameter 'node': must not contain control characters other than tab and line breaks" },
    ]);
    expect(decodeParams(declaration, { params: { node: 'n' }, body: { vmid: '100', comment: 'line one\r\n\tline two' } })).toEqual({
      node: 'n',
      vmid: 100,
      comment: 'line one\r\n\tline two',
    });
  });

  it('names every bad parameter once', () => {
    expect(problems({ params: { node: 'N!' }, body: { vmid: '99', full: 'true', vms: ['x'], extra: '1' } })).toEqual([
      { param: 'node', message: "parameter 'node': must be a node name" },
      { param: 'vmid', message: "parameter 'vmid': must be at least 100" },
      { param: 'full', message: "parameter 'full': expected a boolean (0 or 1), got 'true'" },
      { param: 'vms', message: "parameter 'vms': expected an integer, got 'x'" },
      { param: 'extra', message: "unknown parameter 'extra'" },
    ]);
  });

  it('reports only the first problem of a parameter that breaks several rules', () => {
    // 'N!' both contradicts the body and breaks the node-name pattern.
    expect(problems({ params: { node: 'N!' }, body: { node: 'b', vmid: '1' } })).toEqual([
      { param: 'node', message: "parameter 'node' conflicts with the value given in the path" },
      { param: 'vmid', message: "parameter 'vmid': must be at least 100" },
    ]);
  });

  it('reports a missing parameter and a contradicted path value', () => {
    expect(problems({ params: { node: 'a' }, body: { node: 'b' } })).toEqual([
      { param: 'node', message: "parameter 'node' conflicts with the value given in the path" },
      { param: 'vmid', message: "parameter 'vmid' is missing" },
    ]);
  });

  it('does not take decimals or exponents for integers', () => {
    expect(problems({ params: { node: 'a' }, body: { vmid: '1e3' } })).toEqual([
      { param: 'vmid', message: "parameter 'vmid': expected an integer, got '1e3'" },
    ]);
    expect(problems({ params: { node: 'a' }, body: { vmid: 100.5 } })).toEqual([
      { param: 'vmid', message: "parameter 'vmid': expected an integer, got '100.5'" },
    ]);
  });

  it('refuses a body that is not an object', () => {
    expect(() => decodeParams(declaration, { params: { node: 'a' }, body: [1] })).toThrow(
      'the request body must be a JSON object or a form',
    );
  });
});
