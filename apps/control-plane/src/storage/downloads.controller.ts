import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Params } from '../http/request-params.js';
import { AppliancesService } from './appliances.service.js';
import { DOWNLOAD_ENDPOINTS } from './downloads.endpoints.js';
import { VolumeDownloadService } from './volume-download.service.js';

type Endpoints = typeof DOWNLOAD_ENDPOINTS;

/** Downloads into a node's storages: from a URL, and appliance templates of the index (PVE's paths). */
@Controller()
export class DownloadsController {
  constructor(
    private readonly downloads: VolumeDownloadService,
    private readonly appliances: AppliancesService,
  ) {}

  @Endpoint(DOWNLOAD_ENDPOINTS.downloadUrl)
  downloadUrl(@Params() params: ParamsOf<Endpoints['downloadUrl']>, @Caller() caller: Principal): Promise<string> {
    return this.downloads.downloadUrl(params, caller);
  }

  @Endpoint(DOWNLOAD_ENDPOINTS.queryUrlMetadata)
  queryUrlMetadata(@Params() params: ParamsOf<Endpoints['queryUrlMetadata']>): Promise<ResultOf<Endpoints['queryUrlMetadata']>> {
    return this.downloads.metadata(params);
  }

  @Endpoint(DOWNLOAD_ENDPOINTS.appliances)
  listAppliances(@Params() { node }: ParamsOf<Endpoints['appliances']>): Promise<ResultOf<Endpoints['appliances']>> {
    return this.appliances.list(node);
  }

  @Endpoint(DOWNLOAD_ENDPOINTS.downloadAppliance)
  downloadAppliance(@Params() params: ParamsOf<Endpoints['downloadAppliance']>, @Caller() caller: Principal): Promise<string> {
    return this.appliances.download(params, caller);
  }
}
