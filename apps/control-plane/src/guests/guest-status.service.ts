import { Injectable } from '@nestjs/common';
import { childAuditor } from '@corral/acl';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { HaView } from '../inventory/ha/ha-view.js';
import { NodesService } from '../nodes/nodes.service.js';
import type { GuestKind } from './guest-kinds.js';
import type { GuestRef } from './guest-ref.js';
import { GuestStates } from './guest-states.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import type { GuestStatus } from './guest.endpoints.js';
import { statusEntry } from './status-entry.js';
import { JsonText, JsonTexts } from '../http/json-text.js';

/** What the guests are: a node's list, one guest's status with its HA state, its sub-resources. */
@Injectable()
export class GuestStatusService {
  constructor(
    private readonly view: GuestView,
    private readonly states: GuestStates,
    private readonly nodes: NodesService,
    private readonly access: AccessState,
    private readonly ha: HaView,
  ) {}

  private readonly texts = new JsonTexts();

  /** The node's guests of the kind, each entry kept as JSON while its row and run state are those it was made from. */
  async list(kind: GuestKind, node: string, caller: Principal): Promise<JsonText<GuestStatus[]>> {
    this.nodes.existing(node);
    const audits = childAuditor(await this.access.current(), caller.subject, '/vms', ['VM.Audit']);
    return JsonText.array(
      this.view
        .onNode(node)
        .filter((state) => state.row.type === kind.type && audits(state.row.vmid))
        .map((state) => this.texts.text(state.row, state.runtime, undefined, () => statusEntry(state))),
    );
  }

  current(guest: GuestRef): GuestStatus {
    const entry = statusEntry(this.states.existing(guest));
    const ha = this.ha.get(guest.vmid) ?? null;
    return {
      ...entry,
      ha: ha === null ? { managed: 0 } : { managed: 1, state: ha.state, ...(ha.group !== null ? { group: ha.group } : {}) },
    };
  }

  index(guest: GuestRef): { subdir: string }[] {
    this.states.existing(guest);
    const own =
      guest.kind.type === 'qemu'
        ? ['agent', 'cloudinit', 'monitor', 'move_disk', 'unlink', 'vncproxy', 'vncwebsocket']
        : ['interfaces', 'move_volume'];
    return ['config', 'pending', 'status', 'template', 'snapshot', 'feature', 'clone', 'migrate', 'resize', 'rrd', 'rrddata', ...own].map(
      (subdir) => ({
        subdir,
      }),
    );
  }
}
