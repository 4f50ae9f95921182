import { Module } from '@nestjs/common';
import { EventsModule } from '../../events/events.module.js';
import { InventoryModule } from '../../inventory/inventory.module.js';
import { ClusterEventsController } from './cluster-events.controller.js';
import { ClusterEventsService } from './cluster-events.service.js';
import { EventStreams } from './event-streams.js';
import { EventsWebsocket } from './events-websocket.js';
import { ServerSentEvents } from './server-sent-events.js';

/** `/cluster/events`: the event stream as a websocket or server-sent events, and pages of events as JSON. */
@Module({
  imports: [EventsModule, InventoryModule],
  controllers: [ClusterEventsController],
  providers: [ClusterEventsService, EventStreams, ServerSentEvents, EventsWebsocket],
})
export class ClusterEventsModule {}
