import { Controller, type Type } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { badParam } from '../../errors/resource-errors.js';
import { PVE_TOKEN_ENDPOINTS, SPEC_TOKEN_ENDPOINTS, type TokenEndpoints } from './tokens.endpoints.js';
import { TokensService, type TokenChanges } from './tokens.service.js';

/** One controller per path form: the same handlers, mounted on Corral's or PVE's paths. */
function tokensController(endpoints: TokenEndpoints): Type {
  @Controller()
  class TokensController {
    constructor(private readonly tokens: TokensService) {}

    @Endpoint(endpoints.list)
    list(@Params() params: ParamsOf<TokenEndpoints['list']>): Promise<ResultOf<TokenEndpoints['list']>> {
      return this.tokens.list(params.userid);
    }

    @Endpoint(endpoints.create)
    create(@Params() { userid, tokenid, ...options }: ParamsOf<TokenEndpoints['create']>): Promise<ResultOf<TokenEndpoints['create']>> {
      return this.tokens.create(userid, tokenid, options);
    }

    @Endpoint(endpoints.get)
    get(@Params() params: ParamsOf<TokenEndpoints['get']>): Promise<ResultOf<TokenEndpoints['get']>> {
      return this.tokens.get(params.userid, params.tokenid);
    }

    @Endpoint(endpoints.update)
    update(@Params() params: ParamsOf<TokenEndpoints['update']>): Promise<ResultOf<TokenEndpoints['update']>> {
      return this.tokens.update(params.userid, params.tokenid, changesOf(params));
    }

    @Endpoint(endpoints.remove)
    async remove(@Params() params: ParamsOf<TokenEndpoints['remove']>): Promise<null> {
      await this.tokens.remove(params.userid, params.tokenid);
      return null;
    }
  }
  return TokensController;
}

/** PVE clears a setting with `delete`; the service takes `comment: null`. */
function changesOf(params: ParamsOf<TokenEndpoints['update']>): TokenChanges {
  const { comment, expire, privsep, regenerate } = params;
  const clear = params.delete?.includes('comment') ?? false;
  if (clear && comment !== undefined) throw badParam('delete', "parameter 'delete': cannot set and delete 'comment' at the same time");
  return { expire, privsep, regenerate, comment: clear ? null : comment };
}

export const SpecTokensController = tokensController(SPEC_TOKEN_ENDPOINTS);
export const PveTokensController = tokensController(PVE_TOKEN_ENDPOINTS);
