import { Module } from '@nestjs/common';
import { AclController } from './acl.controller.js';
import { AclService } from './acl.service.js';

/** `/access/acl`: `GET`, PVE's `PUT`, and Corral's `POST` and `DELETE`. */
@Module({ controllers: [AclController], providers: [AclService] })
export class AclModule {}
