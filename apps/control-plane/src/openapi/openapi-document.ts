import { z } from 'zod';
import type { Check, EndpointDeclaration, Permission } from '../http/endpoint.js';
import { API_PREFIX } from '../http/endpoint-registry.js';
import { documentedPath, placeholders } from '../http/path-template.js';
import { JSON_CONTENT_TYPE } from '../http/json-content-type.js';

type JsonSchema = Record<string, unknown>;

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  description: '`data` is null; one item per error, one per bad parameter for a 400.',
  required: ['data', 'errors'],
  properties: {
    data: { type: 'null' },
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'integer', description: 'The HTTP status.' },
          message: { type: 'string', description: 'The first message is also the HTTP reason phrase.' },
          param: { type: 'string', description: 'The parameter at fault (400 only).' },
        },
      },
    },
  },
};

// PVE's and Corral's headers: every way a caller authenticates (docs/access-control.md).
const SECURITY_SCHEMES: JsonSchema = {
  ticket: {
    type: 'apiKey',
    in: 'cookie',
    name: 'PVEAuthCookie',
    description: 'A ticket from POST /access/ticket; requests other than GET also need the CSRFPreventionToken header.',
  },
  apiToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: "`PVEAPIToken=<user>@<realm>!<tokenid>=<secret>` (or `SVCAPIToken=`, or Corral's `<user>@<realm>=<secret>`).",
  },
  basic: { type: 'http', scheme: 'basic', description: '`<user>@<realm>` and its password.' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A JWT from the configured OAuth 2.0 issuer.' },
};

/** The OpenAPI 3.1 document of every declared endpoint, derived from the declarations alone. */
export function buildOpenApiDocument(declarations: readonly EndpointDeclaration[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const declaration of [...declarations].sort((a, b) => a.path.localeCompare(b.path))) {
    (paths[documentedPath(declaration.path)] ??= {})[declaration.method.toLowerCase()] = operation(declaration);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Corral API',
      version,
      description: 'Wire-compatible with the Proxmox VE API: form or JSON bodies, 0/1 booleans, `{ "data": ... }` envelope.',
    },
    servers: [{ url: API_PREFIX }],
    security: Object.keys(SECURITY_SCHEMES).map((scheme) => ({ [scheme]: [] })),
    paths,
    components: { schemas: { ErrorEnvelope: ERROR_ENVELOPE }, securitySchemes: SECURITY_SCHEMES },
  };
}

function operation(declaration: EndpointDeclaration): JsonSchema {
  const inPath = new Set(placeholders(declaration.path));
  const inBody = declaration.method === 'POST' || declaration.method === 'PUT';
  const parameters: JsonSchema[] = [];
  const bodyProperties: Record<string, JsonSchema> = {};
  const bodyRequired: string[] = [];
  for (const [name, schema] of Object.entries(declaration.parameters.shape as Record<string, z.ZodType>)) {
    const required = !schema.safeParse(undefined).success;
    const json = jsonSchema(schema);
    if (inPath.has(name)) parameters.push({ name, in: 'path', required: true, schema: json });
    else if (inBody) {
      bodyProperties[name] = json;
      if (required) bodyRequired.push(name);
    } else parameters.push({ name, in: 'query', required, schema: json });
  }
  const body = { type: 'object', additionalProperties: false, properties: bodyProperties, required: bodyRequired };
  const result = jsonSchema(declaration.returns);
  return {
    operationId: operationId(declaration),
    summary: declaration.summary,
    ...(declaration.description ? { description: declaration.description } : {}),
    parameters,
    ...(inBody && Object.keys(bodyProperties).length > 0
      ? {
          requestBody: {
            content: declaration.upload
              ? uploadForm(body, declaration.upload.file)
              : { 'application/x-www-form-urlencoded': { schema: body }, 'application/json': { schema: body } },
          },
        }
      : {}),
    responses: {
      '200': {
        description: 'Success',
        content: {
          [declaration.contentType ?? JSON_CONTENT_TYPE]: {
            schema: declaration.envelope === false ? result : { type: 'object', required: ['data'], properties: { data: result } },
          },
        },
      },
      default: { description: 'Error', content: { [JSON_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    },
    ...(declaration.permission.kind === 'public' ? { security: [] } : {}),
    'x-corral-permission': describePermission(declaration.permission),
  };
}

/** An upload's body: a multipart form, the file part last (http/multipart-upload.ts). */
function uploadForm(body: { properties: Record<string, JsonSchema> }, file: string): JsonSchema {
  const properties = {
    ...body.properties,
    [file]: { type: 'string', format: 'binary', description: "The file; the part's file name is the volume's name." },
  };
  return { 'multipart/form-data': { schema: { ...body, properties } } };
}

function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function operationId(declaration: EndpointDeclaration): string {
  const words = documentedPath(declaration.path)
    .split(/[/{}_.-]+/)
    .filter(Boolean);
  return declaration.method.toLowerCase() + words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}

function describePermission(permission: Permission): JsonSchema {
  switch (permission.kind) {
    case 'public':
      return { description: 'No credentials needed.' };
    case 'authenticated':
      return { description: 'Any authenticated caller; results are filtered by privilege.' };
    case 'privileges':
      return {
        description: `${describeCheck(permission)}.`,
        path: permission.path,
        privileges: permission.privileges,
        any: permission.any ?? false,
      };
    default:
      return { description: `${describeCheck(permission)}.` };
  }
}

function describeCheck(check: Check): string {
  const privileges = (c: { privileges: readonly string[]; any?: boolean }) => `${c.any ? 'any' : 'all'} of ${c.privileges.join(', ')}`;
  switch (check.kind) {
    case 'privileges':
      return `${privileges(check)} on ${check.path}`;
    case 'self':
      return `'${check.param}' is the caller's own user`;
    case 'groups':
      return `${privileges(check)} on /access/groups or on the groups of '${check.param}'`;
    case 'permModify':
      return `may modify permissions on ${check.path}`;
    case 'anyOf':
    case 'allOf':
      return `${check.kind === 'anyOf' ? 'one' : 'each'} of: ${check.checks.map((c) => `(${describeCheck(c)})`).join(', ')}`;
  }
}
