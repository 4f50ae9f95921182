import multipart, { type MultipartFile } from '@fastify/multipart';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';
import type { EndpointDeclaration } from './endpoint.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** An upload endpoint's file part, read up to its start by the endpoint guard; its bytes are still to come. */
    corralUpload: MultipartFile | null;
  }
}

/** The form's other parts: a few short fields (PVE's `checksum` is the longest). */
const FIELD_LIMITS = { fields: 16, fieldSize: 4096, fieldNameSize: 64, parts: 32 };
/** What a form may add to its file: boundaries, part headers and the other fields. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/**
 * Multipart bodies, for PVE's uploads only (`EndpointDeclaration.upload`): the body is not read
 * before the endpoint guard, so neither the global body limit nor memory holds the file. An upload
 * that was refused before its handler read it is drained, so that the connection can go on.
 */
export async function registerMultipart(fastify: FastifyInstance): Promise<void> {
  fastify.decorateRequest('corralUpload', null);
  await fastify.register(multipart, { limits: FIELD_LIMITS });
  // A callback, not an async function: a promise per answer costs every request a turn of the microtask queue.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    request.corralUpload?.file.resume();
    done(null, payload);
  });
}

/** A multipart body for an endpoint that takes none: 415, before anything of it is read. */
export function refuseMultipart(request: FastifyRequest, declaration: EndpointDeclaration): void {
  if (!declaration.upload && request.isMultipart()) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      `unsupported content type 'multipart/form-data' for ${declaration.method} ${declaration.path}: only uploads take it`,
    );
  }
}

/**
 * An upload form's parameters: the fields before its file part, and the file's name as the
 * parameter the part is named for. The file's bytes stay unread on the request (`@Uploaded()`);
 * fields after the file are not seen (PVE's clients send them first). A body larger than the
 * endpoint's limit is refused by its length before anything is read.
 */
export async function readUploadForm(
  request: FastifyRequest,
  upload: NonNullable<EndpointDeclaration['upload']>,
): Promise<Record<string, unknown>> {
  const length = Number(request.headers['content-length'] ?? 0);
  if (length > upload.maxBytes + FORM_OVERHEAD_BYTES) throw tooLarge(upload.maxBytes);
  const fields: [string, unknown][] = [];
  let file: MultipartFile | undefined;
  try {
    for await (const part of request.parts({ limits: { ...FIELD_LIMITS, fileSize: upload.maxBytes, files: 1 } })) {
      if (part.type === 'file') {
        file = part;
        break;
      }
      fields.push([part.fieldname, part.value]);
    }
  } catch (error) {
    throw new ApiError('MALFORMED_BODY', `the multipart form cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const params: Record<string, unknown> = {};
  // A repeated key is a list, as in a urlencoded form.
  for (const [name, value] of fields) params[name] = name in params ? [params[name], value].flat() : value;
  if (file === undefined) return params;
  request.corralUpload = file;
  if (file.fieldname !== upload.file)
    throw badParam(upload.file, `the file must be the form part '${upload.file}', not '${file.fieldname}'`);
  return { ...params, [upload.file]: file.filename };
}

/** The upload's file as it arrives, once: its stream, and whether it was cut at the endpoint's size limit. */
export interface UploadedFile {
  readonly stream: Readable;
  /** True once the stream has ended early because the file was larger than the limit. */
  readonly truncated: () => boolean;
}

/** The handler's parameter for the file of an upload endpoint; a 400 naming the file parameter when the request was no multipart form with a file. */
export const Uploaded = createParamDecorator((file: string, context: ExecutionContext): UploadedFile => {
  const part = context.switchToHttp().getRequest<FastifyRequest>().corralUpload;
  if (!part) throw badParam(file, `send the file as the part '${file}' of a multipart/form-data body`);
  return { stream: part.file, truncated: () => part.file.truncated };
});

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError('BODY_TOO_LARGE', `the upload is larger than the limit of ${maxBytes / 1024 ** 3} GiB`);
}
