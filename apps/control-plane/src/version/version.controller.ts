import { Controller } from '@nestjs/common';
import { Endpoint, type ResultOf } from '../http/endpoint.js';
import { getVersion } from './version.endpoints.js';
import { VersionService } from './version.service.js';

@Controller()
export class VersionController {
  constructor(private readonly version: VersionService) {}

  @Endpoint(getVersion)
  get(): ResultOf<typeof getVersion> {
    return this.version.info();
  }
}
