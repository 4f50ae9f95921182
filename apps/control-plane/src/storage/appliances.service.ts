import { Injectable } from '@nestjs/common';
import type { Principal } from '../http/principal.js';
import { badParam } from '../errors/resource-errors.js';
import type { ParamsOf, ResultOf } from '../http/endpoint.js';
import { NodesService } from '../nodes/nodes.service.js';
import { NEWS_PACKAGE } from './aplinfo-index.js';
import { ApplianceIndex } from './appliance-index.js';
import type { DOWNLOAD_ENDPOINTS } from './downloads.endpoints.js';
import { VolumeDownloadService } from './volume-download.service.js';

type Endpoints = typeof DOWNLOAD_ENDPOINTS;

/** PVE's `/nodes/{node}/aplinfo`: the appliance templates of the index, and their download into a storage (checked against the index's checksum, as PVE requires one). */
@Injectable()
export class AppliancesService {
  constructor(
    private readonly index: ApplianceIndex,
    private readonly nodes: NodesService,
    private readonly downloads: VolumeDownloadService,
  ) {}

  async list(node: string): Promise<ResultOf<Endpoints['appliances']>> {
    this.nodes.existing(node);
    return (await this.index.appliances()).filter((appliance) => appliance.package !== NEWS_PACKAGE);
  }

  async download({ node, storage, template }: ParamsOf<Endpoints['downloadAppliance']>, caller: Principal): Promise<string> {
    this.nodes.existing(node);
    const appliance = (await this.index.appliances()).find((each) => each.package !== NEWS_PACKAGE && each.template === template);
    if (appliance === undefined) throw badParam('template', 'no such template');
    if (appliance.type !== 'lxc' && appliance.type !== 'openvz')
      throw badParam('template', `unknown template type '${appliance.type ?? ''}'`);
    const { sha512sum, md5sum, location = '' } = appliance;
    const checksum = sha512sum
      ? { algorithm: 'sha512' as const, digest: sha512sum.toLowerCase() }
      : md5sum
        ? { algorithm: 'md5' as const, digest: md5sum.toLowerCase() }
        : undefined;
    if (checksum === undefined)
      throw badParam('template', `the index gives no checksum of '${template}': checksum required but not specified`);
    return this.downloads.start(
      { node, storage, content: 'vztmpl', name: template, url: location, verifyCertificates: true, checksum },
      caller,
    );
  }
}
