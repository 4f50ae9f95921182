import { Module } from '@nestjs/common';
import { GroupsController } from './groups.controller.js';
import { GroupsService } from './groups.service.js';

/** `/access/groups`. */
@Module({ controllers: [GroupsController], providers: [GroupsService] })
export class GroupsModule {}
