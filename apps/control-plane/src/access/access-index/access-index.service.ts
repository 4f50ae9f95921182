import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { AccessState } from '../state/access-state.js';
import type { Realm } from './access-index.endpoints.js';

const SUBDIRS = ['users', 'groups', 'roles', 'acl', 'domains', 'ticket', 'password', 'permissions'];

@Injectable()
export class AccessIndexService {
  constructor(private readonly state: AccessState) {}

  index(): { subdir: string }[] {
    return SUBDIRS.map((subdir) => ({ subdir }));
  }

  async realms(): Promise<z.output<typeof Realm>[]> {
    const { realms } = await this.state.current();
    return [...realms.values()].map(({ realm, type, comment }) => ({ realm, type, comment })).sort((a, b) => (a.realm < b.realm ? -1 : 1));
  }
}
