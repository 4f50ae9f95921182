import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../http/endpoint.js';
import { Uploaded, type UploadedFile } from '../http/multipart-upload.js';
import { Params } from '../http/request-params.js';
import { NODE_STORAGE_ENDPOINTS } from './node-storage.endpoints.js';
import { NodeStorageService } from './node-storage.service.js';
import { VolumeUploadService } from './volume-upload.service.js';
import { VolumesService } from './volumes.service.js';

type Endpoints = typeof NODE_STORAGE_ENDPOINTS;

/** `/nodes/{node}/storage`: one node's storages, their volumes, and uploads into them (PVE's paths). */
@Controller()
export class NodeStorageController {
  constructor(
    private readonly storages: NodeStorageService,
    private readonly volumes: VolumesService,
    private readonly uploads: VolumeUploadService,
  ) {}

  @Endpoint(NODE_STORAGE_ENDPOINTS.list)
  list(@Params() params: ParamsOf<Endpoints['list']>, @Caller() caller: Principal): Promise<ResultOf<Endpoints['list']>> {
    return this.storages.list(params, caller);
  }

  @Endpoint(NODE_STORAGE_ENDPOINTS.index)
  index(@Params() { node, storage }: ParamsOf<Endpoints['index']>): Promise<ResultOf<Endpoints['index']>> {
    return this.storages.index(node, storage);
  }

  @Endpoint(NODE_STORAGE_ENDPOINTS.status)
  status(@Params() { node, storage }: ParamsOf<Endpoints['status']>): Promise<ResultOf<Endpoints['status']>> {
    return this.storages.status(node, storage);
  }

  @Endpoint(NODE_STORAGE_ENDPOINTS.content)
  content(@Params() { node, storage, ...filters }: ParamsOf<Endpoints['content']>): Promise<ResultOf<Endpoints['content']>> {
    return this.volumes.onNode(node, storage, filters);
  }

  @Endpoint(NODE_STORAGE_ENDPOINTS.volume)
  volume(@Params() { node, storage, volume }: ParamsOf<Endpoints['volume']>): Promise<ResultOf<Endpoints['volume']>> {
    return this.volumes.volume(node, storage, volume);
  }

  @Endpoint(NODE_STORAGE_ENDPOINTS.deleteVolume)
  deleteVolume(
    @Params() { node, storage, volume, delay }: ParamsOf<Endpoints['deleteVolume']>,
    @Caller() caller: Principal,
  ): Promise<ResultOf<Endpoints['deleteVolume']>> {
    return this.volumes.remove(node, storage, volume, delay, caller);
  }

  @Endpoint(NODE_STORAGE_ENDPOINTS.upload)
  upload(
    @Params() params: ParamsOf<Endpoints['upload']>,
    @Uploaded('filename') file: UploadedFile,
    @Caller() caller: Principal,
  ): Promise<string> {
    return this.uploads.upload(params, file, caller);
  }
}
