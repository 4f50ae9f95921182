import { Module } from '@nestjs/common';
import { RolesController } from './roles.controller.js';
import { RolesService } from './roles.service.js';

/** `/access/roles`. */
@Module({ controllers: [RolesController], providers: [RolesService] })
export class RolesModule {}
