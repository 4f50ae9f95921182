import { Checkbox, Form, FormGroup, WizardStep } from '@patternfly/react-core';
import type { Params } from '../api/client';
import { useContentVolumes, useNodeStorages } from '../api/node-lists';
import { onlineNodes, type Resource } from '../api/resources';
import { ParamHelp, SelectField, TextField } from '../components/form-field';
import { BridgeField, Creating, NodeAndId, Review, useFirstChoice, useGuestWizard, WizardFrame } from '../components/guest-wizard';

/** What the wizard asks, as the user typed it. */
interface Choices {
  readonly node: string;
  readonly vmid: string;
  readonly name: string;
  readonly ostype: string;
  readonly iso: string;
  readonly diskStorage: string;
  readonly diskGiB: string;
  readonly sockets: string;
  readonly cores: string;
  readonly memory: string;
  readonly kvm: boolean;
  readonly bridge: string;
  readonly cloudinit: boolean;
  readonly ciuser: string;
  readonly cipassword: string;
  readonly sshkeys: string;
  readonly ipconfig0: string;
}

/** PVE's guest OS types the wizard offers (PVE's `ostype`). */
const OS_TYPES = [
  ['l26', 'Linux (6.x - 2.6 kernel)'],
  ['win11', 'Windows 11 / Server 2022 / 2025'],
  ['win10', 'Windows 10 / Server 2016 / 2019'],
  ['other', 'Other'],
] as const;

/** Which step shows the message about each parameter the create call sends. */
const STEP_OF: Readonly<Record<string, string>> = {
  node: 'general',
  vmid: 'general',
  name: 'general',
  ostype: 'general',
  ide2: 'os',
  scsi0: 'disk',
  sockets: 'cpu',
  cores: 'cpu',
  memory: 'cpu',
  kvm: 'cpu',
  net0: 'network',
  ide0: 'cloudinit',
  ciuser: 'cloudinit',
  cipassword: 'cloudinit',
  sshkeys: 'cloudinit',
  ipconfig0: 'cloudinit',
};

/** The create call's parameters, as PVE's own wizard sends them. */
function createParams(c: Choices): Params {
  const disk = Number(c.diskGiB) > 0 && c.diskStorage;
  return {
    vmid: c.vmid,
    name: c.name || undefined,
    ostype: c.ostype,
    sockets: c.sockets,
    cores: c.cores,
    memory: c.memory,
    kvm: c.kvm,
    scsihw: disk ? 'virtio-scsi-single' : undefined,
    scsi0: disk ? `${c.diskStorage}:${c.diskGiB}` : undefined,
    ide2: c.iso ? `${c.iso},media=cdrom` : undefined,
    net0: c.bridge ? `virtio,bridge=${c.bridge}` : undefined,
    ide0: c.cloudinit && c.diskStorage ? `${c.diskStorage}:cloudinit` : undefined,
    ciuser: c.cloudinit && c.ciuser ? c.ciuser : undefined,
    cipassword: c.cloudinit && c.cipassword ? c.cipassword : undefined,
    // PVE takes the keys URI-encoded.
    sshkeys: c.cloudinit && c.sshkeys ? encodeURIComponent(c.sshkeys) : undefined,
    ipconfig0: c.cloudinit && c.ipconfig0 ? c.ipconfig0 : undefined,
  };
}

/**
 * A VM in steps: node and id (the next free one, `GET /cluster/nextid`), name and OS, an ISO image,
 * a disk on a storage, CPU and memory, a network card, cloud-init; then the create call, whose
 * refusals are shown on the step of the parameter they name, and its task's log, live.
 */
export function CreateVmWizard({ resources }: { readonly resources: readonly Resource[] }) {
  const online = onlineNodes(resources);
  const wizard = useGuestWizard<Choices>(
    'qemu',
    {
      node: online[0] ?? '',
      vmid: '',
      name: '',
      ostype: 'l26',
      iso: '',
      diskStorage: '',
      diskGiB: '32',
      sockets: '1',
      cores: '1',
      memory: '2048',
      kvm: true,
      bridge: '',
      cloudinit: false,
      ciuser: '',
      cipassword: '',
      sshkeys: '',
      ipconfig0: 'ip=dhcp',
    },
    STEP_OF,
  );
  const { choices: c, set, error, failure, stepStatus } = wizard;
  const storages = useNodeStorages(c.node, 'images');
  const isos = useContentVolumes(c.node, 'iso');

  useFirstChoice(c.diskStorage, storages.data?.[0]?.storage, set('diskStorage'));

  if (wizard.upid) return <Creating kind="VM" node={c.node} vmid={c.vmid} upid={wizard.upid} />;

  return (
    <WizardFrame title="Create a VM" onCreate={() => void wizard.create(createParams(c))}>
      <WizardStep name="General" id="step-general" status={stepStatus('general')}>
        <Form>
          <NodeAndId wizard={wizard} nodes={online} idLabel="VM ID" />
          <TextField id="name" label="Name" value={c.name} onChange={set('name')} error={error('name')} />
          <SelectField
            id="ostype"
            label="Guest OS"
            value={c.ostype}
            onChange={set('ostype')}
            options={OS_TYPES.map(([value, label]) => ({ value, label }))}
            error={error('ostype')}
          />
        </Form>
      </WizardStep>
      <WizardStep name="Installation media" id="step-os" status={stepStatus('os')}>
        <Form>
          <SelectField
            id="iso"
            label="ISO image"
            value={c.iso}
            onChange={set('iso')}
            options={[{ value: '', label: 'none' }, ...(isos.data ?? []).map((iso) => ({ value: iso.volid, label: iso.volid }))]}
            error={error('ide2')}
            hint="Upload images to a storage that holds ISO images first."
          />
        </Form>
      </WizardStep>
      <WizardStep name="Disk" id="step-disk" status={stepStatus('disk')}>
        <Form>
          <SelectField
            id="disk-storage"
            label="Storage"
            value={c.diskStorage}
            onChange={set('diskStorage')}
            options={(storages.data ?? []).map((s) => ({ value: s.storage, label: `${s.storage} (${s.type})` }))}
          />
          <TextField
            id="disk-size"
            label="Size (GiB)"
            type="number"
            value={c.diskGiB}
            onChange={set('diskGiB')}
            error={error('scsi0')}
            hint="0: no disk."
          />
        </Form>
      </WizardStep>
      <WizardStep name="CPU and memory" id="step-cpu" status={stepStatus('cpu')}>
        <Form>
          <TextField id="sockets" label="Sockets" type="number" value={c.sockets} onChange={set('sockets')} error={error('sockets')} />
          <TextField id="cores" label="Cores" type="number" value={c.cores} onChange={set('cores')} error={error('cores')} />
          <TextField id="memory" label="Memory (MiB)" type="number" value={c.memory} onChange={set('memory')} error={error('memory')} />
          <FormGroup fieldId="kvm">
            <Checkbox
              id="kvm"
              label="KVM hardware virtualization"
              description="Off: QEMU emulates the CPU (TCG), slowly, for hosts without usable KVM."
              isChecked={c.kvm}
              onChange={(_e, checked) => set('kvm')(checked)}
            />
            <ParamHelp message={error('kvm')} />
          </FormGroup>
        </Form>
      </WizardStep>
      <WizardStep name="Network" id="step-network" status={stepStatus('network')}>
        <Form>
          <BridgeField node={c.node} value={c.bridge} onChange={set('bridge')} error={error('net0')} hint="A VirtIO card on the bridge." />
        </Form>
      </WizardStep>
      <WizardStep name="Cloud-init" id="step-cloudinit" status={stepStatus('cloudinit')}>
        <Form>
          <Checkbox
            id="cloudinit"
            label="A cloud-init drive on the disk's storage"
            isChecked={c.cloudinit}
            onChange={(_e, checked) => set('cloudinit')(checked)}
          />
          {c.cloudinit && (
            <>
              <TextField id="ciuser" label="User" value={c.ciuser} onChange={set('ciuser')} error={error('ciuser')} />
              <TextField
                id="cipassword"
                label="Password"
                type="password"
                value={c.cipassword}
                onChange={set('cipassword')}
                error={error('cipassword')}
              />
              <TextField id="sshkeys" label="SSH public key" value={c.sshkeys} onChange={set('sshkeys')} error={error('sshkeys')} />
              <TextField
                id="ipconfig0"
                label="IP configuration"
                value={c.ipconfig0}
                onChange={set('ipconfig0')}
                error={error('ipconfig0')}
                hint="ip=dhcp, or ip=10.0.0.5/24,gw=10.0.0.1"
              />
            </>
          )}
        </Form>
      </WizardStep>
      <WizardStep name="Review" id="step-review" footer={{ nextButtonText: 'Create' }}>
        <Review
          failure={failure}
          what="VM"
          facts={[
            ['Node', c.node],
            ['VM ID', c.vmid],
            ['Name', c.name || '-'],
            ['ISO image', c.iso || 'none'],
            ['Disk', Number(c.diskGiB) > 0 ? `${c.diskGiB} GiB on ${c.diskStorage}` : 'none'],
            ['CPU', `${c.sockets} socket(s), ${c.cores} core(s)${c.kvm ? '' : ', emulated (no KVM)'}`],
            ['Memory', `${c.memory} MiB`],
            ['Network', c.bridge ? `VirtIO on ${c.bridge}` : 'none'],
            ['Cloud-init', c.cloudinit ? 'yes' : 'no'],
          ]}
        />
      </WizardStep>
    </WizardFrame>
  );
}
