import { Injectable } from '@nestjs/common';
import { GuestView } from '../inventory/guests/guest-view.js';
import { AgentHub } from './agent-hub.js';
import { SharedRuntime } from './shared-runtime.js';

/** Hands the guest view the runtime reports and guest events of the agents this replica holds; the reports are shared with the other replicas too. */
@Injectable()
export class GuestReports {
  constructor(hub: AgentHub, view: GuestView, shared: SharedRuntime) {
    hub.onGuests({
      runtime: (node, update) => {
        shared.published(node, update.guests);
        return view.report(node, update);
      },
      event: (db, node, frame) => view.event(db, node, frame),
    });
  }
}
