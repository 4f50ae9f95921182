import { Global, Module } from '@nestjs/common';
import { AccessState } from '../state/access-state.js';
import { AccessBootstrap } from '../bootstrap.js';
import { Authenticator } from './authenticator.js';
import { BearerTokens } from './bearer-tokens.js';
import { TicketKeys } from './ticket-keys.js';

/** Authentication and the access snapshot, for the endpoint guard and the access API. */
@Global()
@Module({
  providers: [AccessState, TicketKeys, BearerTokens, Authenticator, AccessBootstrap],
  exports: [AccessState, TicketKeys, Authenticator],
})
export class AuthModule {}
