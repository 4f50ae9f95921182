import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { BackupArchives } from '../guests/restore/backup-archives.js';
import { NodesService } from '../nodes/nodes.service.js';
import { VZDUMP_ENDPOINTS } from './vzdump.endpoints.js';
import { vzdumpOptionsOf } from './vzdump-params.js';
import { VzdumpService } from './vzdump.service.js';

type Endpoints = typeof VZDUMP_ENDPOINTS;

/** `/nodes/{node}/vzdump`: backup runs, and what an archive holds. */
@Controller()
export class VzdumpController {
  constructor(
    private readonly vzdump: VzdumpService,
    private readonly archives: BackupArchives,
    private readonly nodes: NodesService,
  ) {}

  @Endpoint(VZDUMP_ENDPOINTS.run)
  run(@Params() p: ParamsOf<Endpoints['run']>, @Caller() caller: Principal): Promise<string> {
    return this.vzdump.start(p.node, vzdumpOptionsOf(p), caller);
  }

  @Endpoint(VZDUMP_ENDPOINTS.extractConfig)
  async extractConfig(@Params() p: ParamsOf<Endpoints['extractConfig']>, @Caller() caller: Principal): Promise<string> {
    this.nodes.existing(p.node);
    const config = await this.archives.config(p.node, await this.archives.find(p.node, p.volume, 'volume', caller));
    // Masked as `GET .../config` masks it: the archive holds it so that a restore gets it back.
    return config.replace(/^cipassword: .*$/m, 'cipassword: **********');
  }
}
