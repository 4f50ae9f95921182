import type { StorageRow } from '../../../inventory/storage/storage.entity.js';
import type { HaGroupRow } from '../../../inventory/ha/ha-group.entity.js';
import { recoveryTarget } from './recovery-target.js';

const storage = (id: string, shared: boolean, nodes: string[] | null = null, disable = false) =>
  [id, { storage: id, shared, nodes, disable } as StorageRow] as const;
const STORAGES = new Map([
  storage('san', true),
  storage('local', false),
  storage('ab', true, ['a', 'b']),
  storage('off', true, null, true),
]);
const group = (nodes: [string, number | null][], restricted = false): HaGroupRow => ({
  group: 'g',
  nodes: nodes.map(([node, priority]) => ({ node, priority })),
  restricted,
  nofailback: false,
  comment: null,
});
const nodes = (...load: [string, number][]) => load.map(([node, haGuests]) => ({ node, haGuests }));

describe('recoveryTarget', () => {
  it('takes the least loaded online node without a group, then the first by name', () => {
    expect(recoveryTarget({ storages: ['san'] }, null, nodes(['c', 1], ['b', 0], ['d', 0]), STORAGES)).toEqual({
      node: 'b',
      priority: null,
    });
  });

  it('prefers the highest priority of the group over load, and falls back to other nodes unless restricted', () => {
    expect(
      recoveryTarget(
        { storages: ['san'] },
        group([
          ['c', 1],
          ['d', 5],
        ]),
        nodes(['b', 0], ['c', 0], ['d', 9]),
        STORAGES,
      ),
    ).toEqual({ node: 'd', priority: 5 });
    expect(recoveryTarget({ storages: ['san'] }, group([['x', 1]]), nodes(['b', 3], ['c', 1]), STORAGES)).toEqual({
      node: 'c',
      priority: null,
    });
    expect(recoveryTarget({ storages: ['san'] }, group([['x', 1]], true), nodes(['b', 3]), STORAGES)).toEqual({
      node: null,
      reason: "its group 'g' is restricted to nodes 'x', and none of them is online",
    });
  });

  it('needs every volume on a shared storage, enabled and defined for the target', () => {
    expect(recoveryTarget({ storages: ['san', 'local'] }, null, nodes(['b', 0]), STORAGES)).toEqual({
      node: null,
      reason: "its volumes are on storage 'local', which is not shared: no other node reaches them",
    });
    expect(recoveryTarget({ storages: ['ab'] }, null, nodes(['c', 0], ['b', 5]), STORAGES)).toEqual({ node: 'b', priority: null });
    expect(recoveryTarget({ storages: ['off'] }, null, nodes(['c', 0]), STORAGES)).toEqual({
      node: null,
      reason: "no online node reaches storage 'off'",
    });
    expect(recoveryTarget({ storages: ['san'] }, null, [], STORAGES)).toEqual({ node: null, reason: 'no other node is online' });
  });
});
