import { Inject, Injectable } from '@nestjs/common';
import { childAuditor } from '@corral/acl';
import { JsonText, JsonTexts } from '../http/json-text.js';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { AgentHub } from '../agents/agent-hub.js';
import { notFound } from '../errors/resource-errors.js';
import { TLS_FINGERPRINT } from '../tls/certificate.js';
import { BUILD_INFO, type BuildInfo } from '../version/build-info.js';
import { pveManagerVersion } from '../version/version.service.js';
import { pveNodeStatus } from './node-status.js';
import { HOST_READ_MS } from '../agents/host-timeouts.js';
import { NodeView, type NodeState } from '../inventory/nodes/node-view.js';
import type { NodeListEntry, NodeStatusResult } from './nodes.endpoints.js';
import type { z } from 'zod';

/** The sub-resources of `/nodes/{node}` this control plane serves. */
const NODE_INDEX = [
  'apt',
  'disks',
  'dns',
  'firewall',
  'lxc',
  'network',
  'qemu',
  'rrd',
  'rrddata',
  'scan',
  'status',
  'subscription',
  'tasks',
];

@Injectable()
export class NodesService {
  private readonly texts = new JsonTexts();

  constructor(
    private readonly view: NodeView,
    private readonly hub: AgentHub,
    private readonly access: AccessState,
    @Inject(TLS_FINGERPRINT) private readonly fingerprint: string,
    @Inject(BUILD_INFO) private readonly build: BuildInfo,
  ) {}

  /** Each node's entry is kept as JSON while its state is the same object (replaced on any change) and the caller's right to audit it is as it was. */
  async list(caller: Principal): Promise<JsonText<NodeListEntry[]>> {
    const audits = childAuditor(await this.access.current(), caller.subject, '/nodes', ['Sys.Audit']);
    return JsonText.array(
      this.view.list().map((node) => {
        const shown = audits(node.name);
        return this.texts.text(node, shown, undefined, () => this.entry(node, shown));
      }),
    );
  }

  private entry(node: NodeState, audited: boolean): NodeListEntry {
    const entry: NodeListEntry = {
      node: node.name,
      id: `node/${node.name}`,
      type: 'node',
      status: node.online ? 'online' : 'offline',
      level: '',
      ssl_fingerprint: this.fingerprint,
    };
    const inventory = node.inventory;
    if (!inventory || !audited) return entry;
    const { cpu, maxcpu, mem, maxmem, disk, maxdisk, uptime } = inventory;
    // An offline node's last load is not its load now (PVE shows none either).
    return node.online
      ? { ...entry, cpu, maxcpu, mem, maxmem, memtotal: maxmem, disk, maxdisk, uptime }
      : { ...entry, maxcpu, maxmem, memtotal: maxmem, maxdisk };
  }

  index(name: string): { name: string }[] {
    this.existing(name);
    return NODE_INDEX.map((entry) => ({ name: entry }));
  }

  async status(name: string): Promise<z.infer<typeof NodeStatusResult>> {
    this.existing(name);
    const status = await this.hub.request(name, 'node.status', {}, { timeoutMs: HOST_READ_MS });
    return pveNodeStatus(status, pveManagerVersion(this.build));
  }

  subscription(name: string): { status: 'notfound'; message: string; level: '' } {
    this.existing(name);
    return {
      status: 'notfound',
      message: 'Corral is free software (Apache-2.0): there is no subscription, and nothing needs one.',
      level: '',
    };
  }

  /** The node, or 404 `node 'x' does not exist` when it never joined. */
  existing(name: string): NodeState {
    const node = this.view.get(name);
    if (!node) throw notFound(`node '${name}'`);
    return node;
  }
}
