import { Module } from '@nestjs/common';
import { RealmsController } from './realms.controller.js';
import { RealmsService } from './realms.service.js';

/** `/access/domains`: the authentication realms (docs/access-control.md "Realms"). */
@Module({ controllers: [RealmsController], providers: [RealmsService] })
export class RealmsModule {}
