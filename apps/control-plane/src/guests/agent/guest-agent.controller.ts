import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { GUEST_AGENT_ENDPOINTS as E } from './guest-agent.endpoints.js';
import { GuestAgentService, type ExecStatus } from './guest-agent.service.js';

type Simple = ParamsOf<typeof E.ping>;
type Answer = Promise<ResultOf<typeof E.ping>>;

/** `/nodes/{node}/qemu/{vmid}/agent/...`: one line per endpoint into the guest agent service. */
@Controller()
export class GuestAgentController {
  constructor(private readonly agent: GuestAgentService) {}

  @Endpoint(E.index)
  index(@Params() p: ParamsOf<typeof E.index>): ResultOf<typeof E.index> {
    return this.agent.index(p.node, p.vmid);
  }

  @Endpoint(E.command)
  command(@Params() p: ParamsOf<typeof E.command>): Answer {
    return this.agent.command(p.node, p.vmid, p.command);
  }

  @Endpoint(E.ping) ping(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'ping');
  }
  @Endpoint(E.info) info(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'info');
  }
  @Endpoint(E.getOsinfo) getOsinfo(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'get-osinfo');
  }
  @Endpoint(E.getHostName) getHostName(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'get-host-name');
  }
  @Endpoint(E.getTime) getTime(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'get-time');
  }
  @Endpoint(E.getTimezone) getTimezone(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'get-timezone');
  }
  @Endpoint(E.getUsers) getUsers(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'get-users');
  }
  @Endpoint(E.getVcpus) getVcpus(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'get-vcpus');
  }
  @Endpoint(E.getFsinfo) getFsinfo(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'get-fsinfo');
  }
  @Endpoint(E.networkGetInterfaces) networkGetInterfaces(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'network-get-interfaces');
  }
  @Endpoint(E.fsfreezeStatus) fsfreezeStatus(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'fsfreeze-status');
  }
  @Endpoint(E.fsfreezeFreeze) fsfreezeFreeze(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'fsfreeze-freeze');
  }
  @Endpoint(E.fsfreezeThaw) fsfreezeThaw(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'fsfreeze-thaw');
  }
  @Endpoint(E.fstrim) fstrim(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'fstrim');
  }
  @Endpoint(E.shutdown) shutdown(@Params() p: Simple): Answer {
    return this.agent.command(p.node, p.vmid, 'shutdown');
  }

  @Endpoint(E.exec)
  exec(@Params() p: ParamsOf<typeof E.exec>): Promise<{ pid: number }> {
    return this.agent.exec(p.node, p.vmid, p.command, p['input-data']);
  }

  @Endpoint(E.execStatus)
  execStatus(@Params() p: ParamsOf<typeof E.execStatus>): Promise<ExecStatus> {
    return this.agent.execStatus(p.node, p.vmid, p.pid);
  }
}
