import { Module } from '@nestjs/common';
import { AccessIndexModule } from './access-index/access-index.module.js';
import { AclModule } from './acl/acl.module.js';
import { GroupsModule } from './groups/groups.module.js';
import { PermissionsModule } from './permissions/permissions.module.js';
import { RealmsModule } from './realms/realms.module.js';
import { RolesModule } from './roles/roles.module.js';
import { TicketModule } from './ticket/ticket.module.js';
import { TokensModule } from './tokens/tokens.module.js';
import { UsersModule } from './users/users.module.js';

/** The access-control API: tickets, users, groups, roles, ACLs, tokens, permissions, realms. */
@Module({
  imports: [
    AccessIndexModule,
    TicketModule,
    UsersModule,
    GroupsModule,
    RolesModule,
    AclModule,
    PermissionsModule,
    TokensModule,
    RealmsModule,
  ],
})
export class AccessModule {}
