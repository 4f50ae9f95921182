import type { ReactNode } from 'react';
import { call } from '../api/client';
import { Collection, type CollectionSpec } from '../components/collection';
import { bytes } from '../format';

interface NetworkInterface {
  readonly iface: string;
  readonly type: string;
  readonly active?: number;
  readonly autostart?: number;
  readonly cidr?: string;
  readonly gateway?: string;
  readonly bridge_ports?: string;
  readonly comments?: string;
}
interface Disk {
  readonly devpath: string;
  readonly size?: number;
  readonly model?: string;
  readonly type?: string;
  readonly used?: string;
  readonly health?: string;
}
interface FirewallRule {
  readonly pos: number;
  readonly type: string;
  readonly action: string;
  readonly enable?: number;
  readonly source?: string;
  readonly dest?: string;
  readonly proto?: string;
  readonly dport?: string;
  readonly comment?: string;
}
interface Update {
  readonly Package: string;
  readonly OldVersion?: string;
  readonly Version: string;
  readonly Title?: string;
}

const yes = (flag: number | undefined) => (flag === 1 ? 'yes' : 'no');

/** A read-only list of what a node's agent reports: PVE's fields, shown as the API gives them. */
function readOnly<T>(title: string, path: string, key: (row: T) => string, columns: readonly (readonly [string, (row: T) => ReactNode])[]) {
  const spec: CollectionSpec<T> = {
    title,
    queryKey: ['node-list', path],
    list: () => call<T[]>('GET', path),
    key,
    columns,
    mayChange: false,
  };
  return <Collection spec={spec} />;
}

export function NodeNetwork({ base }: { readonly base: string }) {
  return readOnly<NetworkInterface>('Network', `${base}/network`, (i) => i.iface, [
    ['Name', (i) => i.iface],
    ['Type', (i) => i.type],
    ['Active', (i) => yes(i.active)],
    ['Autostart', (i) => yes(i.autostart)],
    ['Address', (i) => i.cidr ?? ''],
    ['Gateway', (i) => i.gateway ?? ''],
    ['Ports', (i) => i.bridge_ports ?? ''],
  ]);
}

export function NodeDisks({ base }: { readonly base: string }) {
  return readOnly<Disk>('Disks', `${base}/disks/list`, (d) => d.devpath, [
    ['Device', (d) => d.devpath],
    ['Type', (d) => d.type ?? ''],
    ['Size', (d) => bytes(d.size)],
    ['Model', (d) => d.model ?? ''],
    ['Used by', (d) => d.used ?? ''],
    ['Health', (d) => d.health ?? ''],
  ]);
}

export function NodeFirewall({ base }: { readonly base: string }) {
  return readOnly<FirewallRule>('Firewall rules', `${base}/firewall/rules`, (r) => String(r.pos), [
    ['#', (r) => r.pos],
    ['Direction', (r) => r.type],
    ['Action', (r) => r.action],
    ['Enabled', (r) => yes(r.enable)],
    ['Source', (r) => r.source ?? 'any'],
    ['Destination', (r) => r.dest ?? 'any'],
    ['Protocol / port', (r) => [r.proto, r.dport].filter(Boolean).join(' ') || 'any'],
    ['Comment', (r) => r.comment ?? ''],
  ]);
}

export function NodeUpdates({ base }: { readonly base: string }) {
  return readOnly<Update>('Updates', `${base}/apt/update`, (u) => u.Package, [
    ['Package', (u) => u.Package],
    ['Installed', (u) => u.OldVersion ?? ''],
    ['Available', (u) => u.Version],
    ['Description', (u) => u.Title ?? ''],
  ]);
}
