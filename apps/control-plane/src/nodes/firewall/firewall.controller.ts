import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { FIREWALL_ENDPOINTS } from './firewall.endpoints.js';
import { NodeFirewallService } from './firewall.service.js';

type Endpoints = typeof FIREWALL_ENDPOINTS;

/** `/nodes/{node}/firewall/...`: the host firewall's rules, aliases and options. */
@Controller()
export class NodeFirewallController {
  constructor(private readonly firewall: NodeFirewallService) {}

  @Endpoint(FIREWALL_ENDPOINTS.index)
  index(@Params() { node }: ParamsOf<Endpoints['index']>): ResultOf<Endpoints['index']> {
    return this.firewall.index(node);
  }

  @Endpoint(FIREWALL_ENDPOINTS.rules)
  rules(@Params() { node }: ParamsOf<Endpoints['rules']>): Promise<ResultOf<Endpoints['rules']>> {
    return this.firewall.rules(node);
  }

  @Endpoint(FIREWALL_ENDPOINTS.createRule)
  async createRule(@Params() { node, ...params }: ParamsOf<Endpoints['createRule']>): Promise<null> {
    await this.firewall.createRule(node, params);
    return null;
  }

  @Endpoint(FIREWALL_ENDPOINTS.rule)
  rule(@Params() { node, pos }: ParamsOf<Endpoints['rule']>): Promise<ResultOf<Endpoints['rule']>> {
    return this.firewall.rule(node, pos);
  }

  @Endpoint(FIREWALL_ENDPOINTS.updateRule)
  async updateRule(@Params() { node, pos, ...params }: ParamsOf<Endpoints['updateRule']>): Promise<null> {
    await this.firewall.updateRule(node, pos, params);
    return null;
  }

  @Endpoint(FIREWALL_ENDPOINTS.deleteRule)
  async deleteRule(@Params() { node, pos, digest }: ParamsOf<Endpoints['deleteRule']>): Promise<null> {
    await this.firewall.deleteRule(node, pos, digest);
    return null;
  }

  @Endpoint(FIREWALL_ENDPOINTS.aliases)
  aliases(@Params() { node }: ParamsOf<Endpoints['aliases']>): Promise<ResultOf<Endpoints['aliases']>> {
    return this.firewall.aliases(node);
  }

  @Endpoint(FIREWALL_ENDPOINTS.createAlias)
  async createAlias(@Params() { node, ...alias }: ParamsOf<Endpoints['createAlias']>): Promise<null> {
    await this.firewall.createAlias(node, alias);
    return null;
  }

  @Endpoint(FIREWALL_ENDPOINTS.alias)
  alias(@Params() { node, name }: ParamsOf<Endpoints['alias']>): Promise<ResultOf<Endpoints['alias']>> {
    return this.firewall.alias(node, name);
  }

  @Endpoint(FIREWALL_ENDPOINTS.updateAlias)
  async updateAlias(@Params() { node, ...params }: ParamsOf<Endpoints['updateAlias']>): Promise<null> {
    await this.firewall.updateAlias(node, params);
    return null;
  }

  @Endpoint(FIREWALL_ENDPOINTS.deleteAlias)
  async deleteAlias(@Params() { node, name, digest }: ParamsOf<Endpoints['deleteAlias']>): Promise<null> {
    await this.firewall.deleteAlias(node, name, digest);
    return null;
  }

  @Endpoint(FIREWALL_ENDPOINTS.options)
  options(@Params() { node }: ParamsOf<Endpoints['options']>): Promise<ResultOf<Endpoints['options']>> {
    return this.firewall.options(node);
  }

  @Endpoint(FIREWALL_ENDPOINTS.setOptions)
  async setOptions(@Params() { node, ...params }: ParamsOf<Endpoints['setOptions']>): Promise<null> {
    await this.firewall.setOptions(node, params);
    return null;
  }
}
