import { Controller } from '@nestjs/common';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { guestController } from '../guest-controller.js';
import { badParam } from '../../errors/resource-errors.js';
import { QEMU } from '../guest-kinds.js';
import { restoreRequestOf } from '../restore/restore-params.js';
import { QEMU_ENDPOINTS } from './qemu.endpoints.js';

type Endpoints = typeof QEMU_ENDPOINTS;

/** `/nodes/{node}/qemu`: the endpoints of every guest, and the VMs' own. */
@Controller()
export class QemuController extends guestController(QEMU, QEMU_ENDPOINTS) {
  @Endpoint(QEMU_ENDPOINTS.create)
  create(@Params() p: ParamsOf<Endpoints['create']>, @Caller() caller: Principal): Promise<string> {
    const restore = restoreRequestOf(QEMU, p, p.archive === undefined ? undefined : { volid: p.archive, param: 'archive' });
    if (restore !== undefined) return this.restores.restore(QEMU, restore, caller);
    if (p.storage !== undefined) throw badParam('storage', 'applies to restores only (with archive): give a disk as scsi0: <storage>:<size in GiB>');
    return this.guests.create(QEMU, { node: p.node, vmid: p.vmid, params: p }, caller);
  }

  @Endpoint(QEMU_ENDPOINTS.suspend)
  suspend(@Params() p: ParamsOf<Endpoints['suspend']>, @Caller() caller: Principal): Promise<string> {
    return this.guests.suspend(QEMU, p.node, p.vmid, p, caller);
  }

  @Endpoint(QEMU_ENDPOINTS.reset)
  reset(@Params() p: ParamsOf<Endpoints['reset']>, @Caller() caller: Principal): Promise<string> {
    return this.guests.reset(QEMU, p.node, p.vmid, caller);
  }

  @Endpoint(QEMU_ENDPOINTS.setConfigAsync)
  setConfigAsync(@Params() p: ParamsOf<Endpoints['setConfigAsync']>, @Caller() caller: Principal): Promise<string> {
    return this.guests.setConfigAsync(QEMU, p.node, p.vmid, p, caller);
  }

  @Endpoint(QEMU_ENDPOINTS.monitorCommands)
  monitorCommands(@Params() p: ParamsOf<Endpoints['monitorCommands']>): ResultOf<Endpoints['monitorCommands']> {
    return this.guests.monitorCommands(p.node, p.vmid);
  }

  @Endpoint(QEMU_ENDPOINTS.monitor)
  monitor(@Params() p: ParamsOf<Endpoints['monitor']>, @Caller() caller: Principal): Promise<string> {
    return this.guests.monitor(p.node, p.vmid, p.command, caller);
  }

  @Endpoint(QEMU_ENDPOINTS.template)
  template(@Params() p: ParamsOf<Endpoints['template']>, @Caller() caller: Principal): Promise<string> {
    return this.guests.template(QEMU, p.node, p.vmid, caller);
  }
}
