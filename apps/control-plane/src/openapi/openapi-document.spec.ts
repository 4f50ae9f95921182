import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../http/params.js';
import { buildOpenApiDocument } from './openapi-document.js';

const start = endpoint({
  method: 'POST',
  path: '/nodes/{node}/qemu/{vmid}/status/start',
  summary: 'Start a VM',
  parameters: z.object({
    node: stringParam({ description: 'node name' }),
    vmid: integerParam({ description: 'VM id', min: 100 }),
    timeout: integerParam({ description: 'seconds' }).optional(),
  }),
  returns: z.string(),
  permission: { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.PowerMgmt'] },
});
const list = endpoint({
  method: 'GET',
  path: '/nodes/{node}/qemu',
  summary: 'List VMs',
  parameters: z.object({ node: stringParam({ description: 'node name' }), full: booleanParam({ description: 'more' }).optional() }),
  returns: z.array(z.object({ vmid: z.number() })),
  permission: { kind: 'authenticated' },
});

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument([start, list], '1.0.0') as {
    openapi: string;
    servers: unknown;
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };

  it('is OpenAPI 3.1 served under /api2/json', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/api2/json' }]);
  });

  it('puts placeholders in the path, other POST parameters in a form or JSON body', () => {
    const op = doc.paths['/nodes/{node}/qemu/{vmid}/status/start']?.['post'] as Record<string, unknown>;
    expect(op['operationId']).toBe('postNodesNodeQemuVmidStatusStart');
    expect(op['parameters']).toEqual([
      { name: 'node', in: 'path', required: true, schema: { type: 'string', description: 'node name' } },
      { name: 'vmid', in: 'path', required: true, schema: expect.objectContaining({ type: 'integer', minimum: 100 }) },
    ]);
    const body = (op['requestBody'] as { content: Record<string, { schema: unknown }> }).content;
    expect(Object.keys(body).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(body['application/json']?.schema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { timeout: expect.objectContaining({ type: 'integer' }) },
      required: [],
    });
    expect(op['x-corral-permission']).toEqual(expect.objectContaining({ path: '/vms/{vmid}', privileges: ['VM.PowerMgmt'], any: false }));
  });

  it('puts GET parameters in the query and documents 0/1 booleans', () => {
    const op = doc.paths['/nodes/{node}/qemu']?.['get'] as Record<string, unknown>;
    expect(op['parameters']).toContainEqual({
      name: 'full',
      in: 'query',
      required: false,
      schema: expect.objectContaining({ type: ['boolean', 'integer'], enum: [true, false, 0, 1] }),
    });
    expect(op['security']).toBeUndefined();
  });

  it('names every way to authenticate, and none for public endpoints', () => {
    const schemes = (doc as unknown as { components: { securitySchemes: Record<string, unknown> } }).components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['apiToken', 'basic', 'bearer', 'ticket']);
    expect((doc as unknown as { security: unknown[] }).security).toHaveLength(4);
  });

  it('wraps results in the data envelope and refers errors to the error envelope', () => {
    const responses = doc.paths['/nodes/{node}/qemu']?.['get']?.['responses'] as Record<
      string,
      { content: Record<string, { schema: unknown }> }
    >;
    expect(responses['200']?.content['application/json;charset=UTF-8']?.schema).toEqual({
      type: 'object',
      required: ['data'],
      properties: { data: expect.objectContaining({ type: 'array' }) },
    });
    expect(responses['default']?.content['application/json;charset=UTF-8']?.schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
  });
});
