import { Module } from '@nestjs/common';
import { AccessIndexController } from './access-index.controller.js';
import { AccessIndexService } from './access-index.service.js';

/** `GET /access` (PVE's index of the access API). */
@Module({ controllers: [AccessIndexController], providers: [AccessIndexService] })
export class AccessIndexModule {}
