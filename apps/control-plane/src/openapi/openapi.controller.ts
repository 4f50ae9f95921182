import { Controller, Inject } from '@nestjs/common';
import { EndpointRegistry } from '../http/endpoint-registry.js';
import { Endpoint, type ResultOf } from '../http/endpoint.js';
import { BUILD_INFO, type BuildInfo } from '../version/build-info.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { getOpenApiDocument } from './openapi.endpoints.js';

@Controller()
export class OpenApiController {
  private document: ResultOf<typeof getOpenApiDocument> | null = null;

  constructor(
    private readonly registry: EndpointRegistry,
    @Inject(BUILD_INFO) private readonly build: BuildInfo,
  ) {}

  @Endpoint(getOpenApiDocument)
  get(): ResultOf<typeof getOpenApiDocument> {
    // Built on first request: the registry is complete only once every module has started.
    return (this.document ??= buildOpenApiDocument(this.registry.declarations, this.build.version));
  }
}
