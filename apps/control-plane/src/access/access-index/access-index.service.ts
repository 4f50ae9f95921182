import { Injectable } from '@nestjs/common';

const SUBDIRS = ['users', 'groups', 'roles', 'acl', 'domains', 'ticket', 'password', 'permissions'];

@Injectable()
export class AccessIndexService {
  index(): { subdir: string }[] {
    return SUBDIRS.map((subdir) => ({ subdir }));
  }
}
