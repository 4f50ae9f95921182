import { checkCreateOptions } from './create-options.js';
import { QEMU } from './guest-kinds.js';
import { createCommand } from './lifecycle/create-command.js';

const refused = (params: Record<string, unknown>) => () => checkCreateOptions(createCommand(QEMU, { node: 'pve1', vmid: 100, ...params }));
const badParam = (param: string, message: string) =>
  expect.objectContaining({ code: 'INVALID_PARAMETERS', details: { problems: [{ param, message }] } });

describe('checkCreateOptions', () => {
  it('accepts what clients send on every create', () => {
    expect(refused({ template: false, 'ha-managed': false, 'live-restore': false, start: true })).not.toThrow();
    expect(refused({ template: true })).not.toThrow();
  });

  it('refuses a template that starts', () => {
    expect(refused({ template: true, start: true })).toThrow(badParam('start', 'a template cannot start: give start=0 with template=1'));
  });

  it('refuses what Corral cannot do at a create yet, naming the parameter', () => {
    expect(refused({ 'ha-managed': true })).toThrow(
      badParam(
        'ha-managed',
        'putting a new guest under HA at create is not built yet: add it through POST /cluster/ha/resources once created',
      ),
    );
    expect(refused({ 'live-restore': true })).toThrow(
      badParam('live-restore', 'applies to restores, and Corral does not start a VM while it is restored: restore, then start'),
    );
    expect(refused({ 'import-working-storage': 'local' })).toThrow(
      badParam('import-working-storage', 'applies to import-from, which Corral does not import yet'),
    );
  });
});
