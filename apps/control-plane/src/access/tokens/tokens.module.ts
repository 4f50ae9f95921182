import { Module } from '@nestjs/common';
import { PveTokensController, SpecTokensController } from './tokens.controller.js';
import { TokensRepository } from './tokens.repository.js';
import { TokensService } from './tokens.service.js';

/** API tokens, on Corral's `.../tokens` and PVE's `.../token` paths. */
@Module({ controllers: [SpecTokensController, PveTokensController], providers: [TokensService, TokensRepository] })
export class TokensModule {}
