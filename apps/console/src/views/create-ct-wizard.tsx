import { Checkbox, Form, WizardStep } from '@patternfly/react-core';
import type { Params } from '../api/client';
import { useContentVolumes, useNodeStorages } from '../api/node-lists';
import { onlineNodes, type Resource } from '../api/resources';
import { SelectField, TextField } from '../components/form-field';
import { BridgeField, Creating, NodeAndId, Review, useFirstChoice, useGuestWizard, WizardFrame } from '../components/guest-wizard';

/** What the wizard asks, as the user typed it. */
interface Choices {
  readonly node: string;
  readonly vmid: string;
  readonly hostname: string;
  readonly password: string;
  readonly sshKey: string;
  readonly unprivileged: boolean;
  readonly template: string;
  readonly rootStorage: string;
  readonly rootGiB: string;
  readonly cores: string;
  readonly memory: string;
  readonly swap: string;
  readonly bridge: string;
  readonly ip: string;
  readonly gateway: string;
}

/** Which step shows the message about each parameter the create call sends. */
const STEP_OF: Readonly<Record<string, string>> = {
  node: 'general',
  vmid: 'general',
  hostname: 'general',
  password: 'general',
  'ssh-public-keys': 'general',
  unprivileged: 'general',
  ostemplate: 'template',
  rootfs: 'disk',
  cores: 'cpu',
  memory: 'cpu',
  swap: 'cpu',
  net0: 'network',
};

/** The create call's parameters, as PVE's own wizard sends them. */
function createParams(c: Choices): Params {
  const ip = c.ip === 'dhcp' || c.ip === '' ? 'dhcp' : c.ip;
  return {
    vmid: c.vmid,
    hostname: c.hostname || undefined,
    password: c.password || undefined,
    'ssh-public-keys': c.sshKey || undefined,
    unprivileged: c.unprivileged,
    ostemplate: c.template,
    rootfs: `${c.rootStorage}:${c.rootGiB}`,
    cores: c.cores,
    memory: c.memory,
    swap: c.swap,
    net0: c.bridge ? `name=eth0,bridge=${c.bridge},ip=${ip}${c.gateway && ip !== 'dhcp' ? `,gw=${c.gateway}` : ''}` : undefined,
  };
}

/**
 * A container in steps: node and id, host name, root password or SSH key, a template, its root
 * disk, CPU and memory, a network card; then the create call, whose refusals are shown on the
 * step of the parameter they name, and its task's log, live.
 */
export function CreateCtWizard({ resources }: { readonly resources: readonly Resource[] }) {
  const online = onlineNodes(resources);
  const wizard = useGuestWizard<Choices>(
    'lxc',
    {
      node: online[0] ?? '',
      vmid: '',
      hostname: '',
      password: '',
      sshKey: '',
      unprivileged: true,
      template: '',
      rootStorage: '',
      rootGiB: '8',
      cores: '1',
      memory: '512',
      swap: '512',
      bridge: '',
      ip: 'dhcp',
      gateway: '',
    },
    STEP_OF,
  );
  const { choices: c, set, error, failure, stepStatus } = wizard;
  const storages = useNodeStorages(c.node, 'rootdir');
  const templates = useContentVolumes(c.node, 'vztmpl');

  useFirstChoice(c.rootStorage, storages.data?.[0]?.storage, set('rootStorage'));
  useFirstChoice(c.template, templates.data?.[0]?.volid, set('template'));

  if (wizard.upid) return <Creating kind="Container" node={c.node} vmid={c.vmid} upid={wizard.upid} />;

  return (
    <WizardFrame title="Create a container" onCreate={() => void wizard.create(createParams(c))}>
      <WizardStep name="General" id="step-general" status={stepStatus('general')}>
        <Form>
          <NodeAndId wizard={wizard} nodes={online} idLabel="CT ID" />
          <TextField id="hostname" label="Host name" value={c.hostname} onChange={set('hostname')} error={error('hostname')} />
          <TextField
            id="password"
            label="Root password"
            type="password"
            value={c.password}
            onChange={set('password')}
            error={error('password')}
          />
          <TextField id="ssh-key" label="SSH public key" value={c.sshKey} onChange={set('sshKey')} error={error('ssh-public-keys')} />
          <Checkbox
            id="unprivileged"
            label="Unprivileged container"
            description="Its root is an unprivileged user on the host."
            isChecked={c.unprivileged}
            onChange={(_e, checked) => set('unprivileged')(checked)}
          />
        </Form>
      </WizardStep>
      <WizardStep name="Template" id="step-template" status={stepStatus('template')}>
        <Form>
          <SelectField
            id="template"
            label="Template"
            isRequired
            value={c.template}
            onChange={set('template')}
            options={(templates.data ?? []).map((t) => ({ value: t.volid, label: t.volid }))}
            error={error('ostemplate')}
            hint="Upload templates, or download them from the appliance index, to a storage that holds them first."
          />
        </Form>
      </WizardStep>
      <WizardStep name="Root disk" id="step-disk" status={stepStatus('disk')}>
        <Form>
          <SelectField
            id="root-storage"
            label="Storage"
            value={c.rootStorage}
            onChange={set('rootStorage')}
            options={(storages.data ?? []).map((s) => ({ value: s.storage, label: `${s.storage} (${s.type})` }))}
          />
          <TextField id="root-size" label="Size (GiB)" type="number" value={c.rootGiB} onChange={set('rootGiB')} error={error('rootfs')} />
        </Form>
      </WizardStep>
      <WizardStep name="CPU and memory" id="step-cpu" status={stepStatus('cpu')}>
        <Form>
          <TextField id="cores" label="Cores" type="number" value={c.cores} onChange={set('cores')} error={error('cores')} />
          <TextField id="memory" label="Memory (MiB)" type="number" value={c.memory} onChange={set('memory')} error={error('memory')} />
          <TextField id="swap" label="Swap (MiB)" type="number" value={c.swap} onChange={set('swap')} error={error('swap')} />
        </Form>
      </WizardStep>
      <WizardStep name="Network" id="step-network" status={stepStatus('network')}>
        <Form>
          <BridgeField
            node={c.node}
            value={c.bridge}
            onChange={set('bridge')}
            error={error('net0')}
            hint="eth0 in the container, on the bridge."
          />
          <TextField
            id="ip"
            label="IPv4 address"
            value={c.ip}
            onChange={set('ip')}
            error={undefined}
            hint="dhcp, or an address with its prefix: 10.0.0.5/24"
          />
          <TextField id="gateway" label="Gateway" value={c.gateway} onChange={set('gateway')} error={undefined} />
        </Form>
      </WizardStep>
      <WizardStep name="Review" id="step-review" footer={{ nextButtonText: 'Create' }}>
        <Review
          failure={failure}
          what="container"
          facts={[
            ['Node', c.node],
            ['CT ID', c.vmid],
            ['Host name', c.hostname || '-'],
            ['Template', c.template || 'none'],
            ['Root disk', `${c.rootGiB} GiB on ${c.rootStorage}`],
            ['CPU', `${c.cores} core(s)`],
            ['Memory', `${c.memory} MiB, swap ${c.swap} MiB`],
            ['Network', c.bridge ? `eth0 on ${c.bridge}, ${c.ip}` : 'none'],
            ['Unprivileged', c.unprivileged ? 'yes' : 'no'],
          ]}
        />
      </WizardStep>
    </WizardFrame>
  );
}
