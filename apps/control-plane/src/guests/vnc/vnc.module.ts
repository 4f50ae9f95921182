import { Module } from '@nestjs/common';
import { AgentsModule } from '../../agents/agents.module.js';
import { InventoryModule } from '../../inventory/inventory.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';
import { VncController } from './vnc.controller.js';
import { VncService } from './vnc.service.js';
import { VncSessions } from './vnc-sessions.js';
import { VncWebsocket } from './vnc-websocket.js';

/** The VNC console of VMs: `vncproxy` and `vncwebsocket`. */
@Module({
  imports: [InventoryModule, AgentsModule, TasksModule, GuestsModule],
  controllers: [VncController],
  providers: [VncService, VncSessions, VncWebsocket],
})
export class VncModule {}
