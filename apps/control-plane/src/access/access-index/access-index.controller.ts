import { Controller } from '@nestjs/common';
import { Endpoint, type ResultOf } from '../../http/endpoint.js';
import { accessIndex } from './access-index.endpoints.js';
import { AccessIndexService } from './access-index.service.js';

@Controller()
export class AccessIndexController {
  constructor(private readonly access: AccessIndexService) {}

  @Endpoint(accessIndex)
  index(): ResultOf<typeof accessIndex> {
    return this.access.index();
  }
}
