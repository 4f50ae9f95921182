import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { data } from '../support/guest-api.js';
import { NODE, startNativeNode, type NativeNode } from './support/native-node.js';

const run = promisify(execFile);

/** One task's result for localhost, as Ansible's json callback reports it. */
interface TaskResult {
  readonly task: { readonly name: string };
  readonly hosts: {
    readonly localhost: { readonly changed?: boolean; readonly failed?: boolean; readonly skipped?: boolean; readonly msg?: string };
  };
}

/**
 * Debian's Ansible (community.general 6.6) runs test/compat/ansible/pve-modules.yml against a
 * native node: proxmox_kvm, proxmox, proxmox_disk, proxmox_nic, proxmox_snap, proxmox_template and
 * proxmox_domain_info, unchanged, as its users run them.
 */
describe('Ansible community.general proxmox modules', () => {
  let node: NativeNode;
  let scratch: string;

  beforeAll(async () => {
    node = await startNativeNode('ansible');
    scratch = await mkdtemp(join(tmpdir(), 'corral-ansible-'));
    // A second directory storage, for proxmox_disk's move.
    data(await node.api.send('/storage', 'POST', { storage: 'second', type: 'dir', path: '/srv/second', content: 'images' }));
    await copyFile(join(node.root, NODE, 'var/lib/vz/template/cache/busybox.tar.gz'), join(scratch, 'ansible-upload.tar.gz'));
  }, 180_000);
  afterAll(async () => {
    await node?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('runs the playbook: every task ok, none skipped', async () => {
    const { stdout } = await run('ansible-playbook', ['-i', 'localhost,', resolve('test/compat/ansible/pve-modules.yml')], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: scratch,
        ANSIBLE_LOCAL_TEMP: join(scratch, 'tmp'),
        ANSIBLE_STDOUT_CALLBACK: 'json',
        ANSIBLE_PYTHON_INTERPRETER: '/usr/bin/python3',
        ANSIBLE_DEPRECATION_WARNINGS: 'false',
        ANSIBLE_PIPELINING: '1',
        CORRAL_PORT: String(node.cp.port),
        CORRAL_PASSWORD: node.rootPassword,
        CORRAL_NODE: NODE,
        CORRAL_UPLOAD: join(scratch, 'ansible-upload.tar.gz'),
      },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? String(error) }));
    const report = JSON.parse(stdout) as {
      plays: { tasks: TaskResult[] }[];
      stats: Record<string, { failures: number; unreachable: number; skipped: number }>;
    };
    const tasks = report.plays.flatMap((play) => play.tasks);
    const failed = tasks
      .filter((task) => task.hosts.localhost.failed === true)
      .map((task) => `${task.task.name}: ${task.hosts.localhost.msg ?? ''}`);
    expect(failed).toEqual([]);
    expect(tasks.filter((task) => task.hosts.localhost.skipped === true).map((task) => task.task.name)).toEqual([]);
    const changed = (name: string) => tasks.find((task) => task.task.name === name)?.hosts.localhost.changed;
    for (const name of [
      'proxmox_kvm creates a VM',
      'proxmox_disk creates a disk',
      'proxmox_disk resizes it',
      'proxmox_disk moves it to another storage',
      'proxmox_disk detaches it',
      'proxmox_nic adds a NIC',
      'proxmox_snap snapshots the VM',
      'proxmox_snap rolls the VM back',
      "proxmox_snap removes the VM's snapshot",
      'proxmox_kvm starts the VM',
      'proxmox_kvm deletes the VM',
      'proxmox creates a container with a root password',
      'proxmox_snap snapshots the container',
      'proxmox_snap rolls the container back',
      "proxmox_snap removes the container's snapshot",
      'proxmox starts the container',
      'proxmox stops the container',
      'proxmox deletes the container',
      'proxmox_template uploads a container template',
      'proxmox_template removes it',
    ]) {
      expect([name, changed(name)]).toEqual([name, true]);
    }
    expect(report.stats['localhost']).toMatchObject({ failures: 0, unreachable: 0, skipped: 0 });
    // Nothing is left behind.
    const guests = data<{ vmid: number }[]>(await node.api.send('/cluster/resources?type=vm'));
    expect(guests.map((guest) => guest.vmid)).toEqual([]);
    // Each task is a Python process of its own: some 25 of them take a few minutes on a busy machine.
  }, 400_000);
});
