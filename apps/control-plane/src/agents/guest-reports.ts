import { Injectable } from '@nestjs/common';
import { GuestView } from '../inventory/guests/guest-view.js';
import { AgentHub } from './agent-hub.js';

/** Hands the guest view the runtime reports and guest events of the agents this replica holds. */
@Injectable()
export class GuestReports {
  constructor(hub: AgentHub, view: GuestView) {
    hub.onGuests({ runtime: (node, { guests }) => view.report(node, guests), event: (db, node, frame) => view.event(db, node, frame) });
  }
}
