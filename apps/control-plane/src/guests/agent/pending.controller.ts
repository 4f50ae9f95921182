import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { GuestConfigService } from '../guest-config.service.js';
import { LXC, QEMU, type GuestKind } from '../guest-kinds.js';
import { guestRef } from '../guest-ref.js';
import { pendingEndpoint, type PendingEntry } from './pending.endpoints.js';

const QEMU_PENDING = pendingEndpoint(QEMU);
const LXC_PENDING = pendingEndpoint(LXC);
type Pending = ParamsOf<typeof QEMU_PENDING>;

/**
 * PVE's config with pending changes. Corral stores a change at once (a running guest gets it at its
 * next start), so the list is the config `GET .../config` answers, each key with its value.
 */
@Controller()
export class PendingController {
  constructor(private readonly configs: GuestConfigService) {}

  @Endpoint(QEMU_PENDING)
  qemu(@Params() p: Pending): PendingEntry[] {
    return this.pending(QEMU, p);
  }

  @Endpoint(LXC_PENDING)
  lxc(@Params() p: Pending): PendingEntry[] {
    return this.pending(LXC, p);
  }

  private pending(kind: GuestKind, p: Pending): PendingEntry[] {
    return Object.entries(this.configs.config(guestRef(kind, p))).map(([key, value]) => ({ key, value }));
  }
}
