import type { GuestType, GuestVolume } from '@corral/protocol';
import { CommandFailure } from '../host/command-failure.js';

/*
 * What the drivers say, to operators as task end texts and task log lines, where more than one of
 * them says it: the native driver's VM and container parts, and the simulator, which says what the
 * native driver says so that the control plane's handling of it is exercised too.
 */

/** The operations refused while the guest runs. */
export type StoppedOnlyOperation = 'destroy' | 'clone' | 'template' | 'move' | 'rollback';

/** How PVE names a guest in its messages: `VM 100`, `CT 200`. */
export function guestLabel(type: GuestType, vmid: number): string {
  return `${type === 'qemu' ? 'VM' : 'CT'} ${vmid}`;
}

/** `reset`, `monitor`, `vnc` and the guest agent name no guest type: asked of a container, the answer says why not, rather than "VM 200 is not running". */
export function containersHaveNo(what: 'reset' | 'monitor' | 'VNC display' | 'QEMU guest agent', vmid: number): CommandFailure {
  return new CommandFailure('invalid-params', `CT ${vmid} is a container: containers have no ${what}`);
}

/** PVE's words when a VM's guest agent does not answer. */
export const GUEST_AGENT_NOT_RUNNING = 'QEMU guest agent is not running';

/** The task log line of a shutdown the guest agent was asked for. */
export function agentShutdownAsked(vmid: number): string {
  return `VM ${vmid}: shutdown asked of the QEMU guest agent`;
}

/** A start of a template: templates are only cloned. */
export function isTemplate(type: GuestType, vmid: number): string {
  return `${guestLabel(type, vmid)} is a template`;
}

/** A start of a guest that runs or is paused. */
export function alreadyRunning(type: GuestType, vmid: number): string {
  return `${guestLabel(type, vmid)} is already running`;
}

/** An error, or for a stop of a stopped VM a task log line. */
export function notRunning(type: GuestType, vmid: number): string {
  return `${guestLabel(type, vmid)} is not running`;
}

/** What each part advises (a container is only ever cloned in full). */
const STOP_FIRST: Readonly<Record<GuestType, Readonly<Record<StoppedOnlyOperation, string>>>> = {
  qemu: {
    destroy: 'stop it before destroying it',
    clone: 'clone it once it is stopped',
    template: 'make a template of it once it is stopped',
    move: 'move its disks once it is stopped',
    rollback: 'stop it before rolling it back',
  },
  lxc: {
    destroy: 'stop it before destroying it',
    clone: 'a full clone needs it stopped',
    template: 'stop it before turning it into a template',
    move: 'cannot move volumes of a running container',
    rollback: 'stop it before rolling it back',
  },
};

/** A destroy, clone or template of a guest that runs. */
export function refusedWhileRunning(type: GuestType, vmid: number, operation: StoppedOnlyOperation): string {
  return `${guestLabel(type, vmid)} is running: ${STOP_FIRST[type][operation]}`;
}

/** A container of that id has its config on this host already. */
export function containerExists(vmid: number): string {
  return `CT ${vmid} already exists on this host`;
}

/** A paused VM cannot see the power button: PVE refuses to shut it down, or stops it when forced. */
export function pausedVmCannotShutDown(vmid: number): string {
  return `VM ${vmid} is paused and cannot shut down (resume it first, or force the stop)`;
}

/** The task log line of a forced shutdown of a paused VM. */
export function stoppingPausedVm(vmid: number): string {
  return `VM ${vmid} is paused: stopping it`;
}

/** The task log line of a shutdown of a frozen container, which must thaw to hear the halt signal. */
export function resumingPausedContainer(vmid: number): string {
  return `CT ${vmid} is paused: resuming it so that it can shut down`;
}

/** A shutdown without forceStop that the guest did not finish in time. */
export function shutdownTimedOut(type: GuestType, vmid: number, timeoutS: number): string {
  return `${guestLabel(type, vmid)} is still running after ${timeoutS} s (shutdown timed out)`;
}

/** The task log line of a shutdown with forceStop that the guest did not finish in time. */
export function stoppingAfterTimeout(type: GuestType, vmid: number, timeoutS: number): string {
  return `${guestLabel(type, vmid)} did not shut down within ${timeoutS} s: stopping it`;
}

/** A create or clone onto a volume that exists: an image file of a VM, a directory with content of a container. */
export function volumeExists(type: GuestType, vmid: number, volume: GuestVolume): string {
  return type === 'qemu'
    ? `VM ${vmid}: volume ${volume.key} already exists (${volume.path})`
    : `volume ${volume.volid} already exists at ${volume.path} and is not empty`;
}

/** The task log line of a destroy for each volume: the VM part's once the image is gone, the container part's before the tree goes. */
export function removingVolume(type: GuestType, volume: GuestVolume): string {
  return type === 'qemu' ? `removed ${volume.volid}` : `removing volume ${volume.volid}`;
}

/** A resize to less than the volume holds (PVE's words). */
export function shrinkingRefused(volume: GuestVolume, size: number, current: number): string {
  return `shrinking disks is not supported: ${volume.key} (${volume.volid}) is ${current} bytes, asked for ${size}`;
}

/** The task log line of a resize. */
export function resizedVolume(volume: GuestVolume, size: number, online: boolean): string {
  return `${volume.key} (${volume.volid}) resized to ${size} bytes${online ? ' online' : ''}`;
}

/** The task log line of a VM template's image. */
export function madeReadOnly(volume: GuestVolume): string {
  return `${volume.volid} is read-only`;
}

/** The task log line of a container clone's volume. */
export function copyingVolume(from: GuestVolume, to: GuestVolume): string {
  return `copying ${from.volid} to ${to.volid}`;
}

/** The task log line of a container create from a template archive, PVE's own. */
export function extractingArchive(archive: string): string {
  return `extracting archive '${archive}'`;
}

/** The task log line of a card whose bridge the host lacks: the guest starts with it unplugged. */
export function cardNotConnected(key: string, bridge: string): string {
  return `${key}: bridge '${bridge}' does not exist on this host; the card is not connected`;
}

/** A migration's target that has the guest already. */
export function existsOnTarget(type: GuestType, vmid: number): string {
  return `${guestLabel(type, vmid)} already exists on this node`;
}

/** An offline migration of a guest that runs. */
export function runningNeedsOnline(type: GuestType, vmid: number): string {
  return `${guestLabel(type, vmid)} is running: migrate it online`;
}

/** The task log line of a volume an offline migration copies (and an online one that the VM does not use). */
export function copyingToNode(volume: GuestVolume, node: string): string {
  return `copying ${volume.volid} to node ${node}`;
}

/** A snapshot of a guest with a volume that cannot snapshot (a raw image): PVE's words. */
export function snapshotNotAvailable(volume: GuestVolume): string {
  return `snapshot feature is not available (volume ${volume.volid} is ${volume.format})`;
}

/** A snapshot whose name a volume has already: PVE's words. */
export function snapshotNameUsed(snapname: string, volume: GuestVolume): string {
  return `snapshot name '${snapname}' already used (on volume ${volume.volid})`;
}

/** A rollback to a snapshot that a volume lacks. */
export function snapshotMissing(snapname: string, volume: GuestVolume): string {
  return `snapshot '${snapname}' does not exist on volume ${volume.volid}`;
}

/** The task log line of each volume a snapshot command changed. */
export function snapshotLine(action: 'created' | 'rolled back to' | 'deleted', snapname: string, volume: GuestVolume): string {
  return `${volume.volid}: ${action} snapshot '${snapname}'`;
}
