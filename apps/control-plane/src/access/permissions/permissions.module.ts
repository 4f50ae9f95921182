import { Module } from '@nestjs/common';
import { PermissionsController } from './permissions.controller.js';
import { PermissionsService } from './permissions.service.js';

/** `/access/permissions` (facts.md 2.4). */
@Module({ controllers: [PermissionsController], providers: [PermissionsService] })
export class PermissionsModule {}
