import { Injectable, StreamableFile, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { buffer } from 'node:stream/consumers';
import { Readable } from 'node:stream';
import { mergeMap, type Observable } from 'rxjs';
import { ENDPOINT, type EndpointDeclaration } from './endpoint.js';

/**
 * Checks every success response against its endpoint's `returns` declaration, so that the OpenAPI
 * document and the wire agree: a field a typed client decodes as a number must be one. Turned on
 * by the test tiers (CORRAL_CHECK_RESPONSES=1), where a mismatch is a 500 that fails the test and
 * names the fields; production skips the cost.
 */
@Injectable()
export class ResponseCheckInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const declaration = Reflect.getMetadata(ENDPOINT, context.getHandler()) as EndpointDeclaration | undefined;
    if (declaration === undefined) return next.handle();
    return next.handle().pipe(mergeMap((body: unknown) => checked(declaration, body)));
  }
}

async function checked(declaration: EndpointDeclaration, body: unknown): Promise<unknown> {
  // A large result sent serialised (JsonText) streams: it is read here, then sent as it was.
  if (body instanceof StreamableFile) {
    const bytes = await buffer(body.getStream());
    await checked(declaration, bytes);
    return new StreamableFile(Readable.from([bytes]), body.options);
  }
  // A result sent serialised is checked as what it says.
  const value = Buffer.isBuffer(body) ? (JSON.parse(body.toString('utf8')) as unknown) : body;
  const data = declaration.envelope === false ? value : (value as { data: unknown }).data;
  const result = declaration.returns.safeParse(data);
  if (result.success) return body;
  const problems = result.error.issues.slice(0, 10).map((issue) => `${['data', ...issue.path].join('.')}: ${issue.message}`);
  throw new ResponseMismatch(
    `the response of ${declaration.method} ${declaration.path} does not match its declaration: ${problems.join('; ')}`,
  );
}

export class ResponseMismatch extends Error {
  override name = 'ResponseMismatch';
}
