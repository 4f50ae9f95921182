import { Module } from '@nestjs/common';
import { EventFeed } from './event-feed.js';
import { EventRetention } from './event-retention.js';
import { EventsRepository } from './events.repository.js';

/** The event table's readers (the live feed every stream of this replica shares) and its retention. */
@Module({
  providers: [EventsRepository, EventFeed, EventRetention],
  exports: [EventsRepository, EventFeed],
})
export class EventsModule {}
