import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { LXC, QEMU } from '../guest-kinds.js';
import { GuestVolumesService } from './guest-volumes.service.js';
import { VOLUME_ENDPOINTS } from './volume.endpoints.js';

type Endpoints = typeof VOLUME_ENDPOINTS;

/** `.../resize`, `move_disk`, `move_volume`, `unlink`. */
@Controller()
export class VolumeController {
  constructor(private readonly volumes: GuestVolumesService) {}

  @Endpoint(VOLUME_ENDPOINTS.qemuResize)
  qemuResize(@Params() p: ParamsOf<Endpoints['qemuResize']>, @Caller() caller: Principal): Promise<string> {
    return this.volumes.resize(QEMU, p, caller);
  }

  @Endpoint(VOLUME_ENDPOINTS.lxcResize)
  lxcResize(@Params() p: ParamsOf<Endpoints['lxcResize']>, @Caller() caller: Principal): Promise<string> {
    return this.volumes.resize(LXC, p, caller);
  }

  @Endpoint(VOLUME_ENDPOINTS.moveDisk)
  moveDisk(@Params() p: ParamsOf<Endpoints['moveDisk']>, @Caller() caller: Principal): Promise<string> {
    return this.volumes.move(
      QEMU,
      {
        ...moved(p),
        key: p.disk,
        keyParam: 'disk',
        targetKeyParam: 'target-disk',
        ...(p['target-disk'] !== undefined ? { targetKey: p['target-disk'] } : {}),
        ...(p.format !== undefined ? { format: p.format } : {}),
      },
      caller,
    );
  }

  @Endpoint(VOLUME_ENDPOINTS.moveVolume)
  moveVolume(@Params() p: ParamsOf<Endpoints['moveVolume']>, @Caller() caller: Principal): Promise<string> {
    return this.volumes.move(
      LXC,
      {
        ...moved(p),
        key: p.volume,
        keyParam: 'volume',
        targetKeyParam: 'target-volume',
        ...(p['target-volume'] !== undefined ? { targetKey: p['target-volume'] } : {}),
      },
      caller,
    );
  }

  @Endpoint(VOLUME_ENDPOINTS.unlink)
  unlink(@Params() p: ParamsOf<Endpoints['unlink']>, @Caller() caller: Principal): Promise<null> {
    return this.volumes.unlink(p.node, p.vmid, p.idlist, p.force === true, caller);
  }
}

/** What move_disk and move_volume share, under the service's names. */
function moved(p: ParamsOf<Endpoints['moveVolume']> | ParamsOf<Endpoints['moveDisk']>) {
  return {
    node: p.node,
    vmid: p.vmid,
    ...(p.storage !== undefined ? { storage: p.storage } : {}),
    ...(p.delete !== undefined ? { delete: p.delete } : {}),
    ...(p['target-vmid'] !== undefined ? { targetVmid: p['target-vmid'] } : {}),
    ...(p.digest !== undefined ? { digest: p.digest } : {}),
    ...(p['target-digest'] !== undefined ? { targetDigest: p['target-digest'] } : {}),
  };
}
