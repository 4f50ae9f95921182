import { Module } from '@nestjs/common';
import { AclController } from './acl.controller.js';
import { AclService } from './acl.service.js';

/** `/access/acl`: PVE's `PUT` and the spec's `GET`, `POST`, `DELETE`. */
@Module({ controllers: [AclController], providers: [AclService] })
export class AclModule {}
