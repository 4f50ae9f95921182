import { GroupNodesError, groupNodesText, parseGroupNodes } from './ha-group-nodes.js';

describe('HA group nodes (`node1:2,node2`)', () => {
  it('reads nodes with and without priorities, in the order given, and shows them back as given', () => {
    const nodes = parseGroupNodes('pve1:2,pve2;pve3:0 pve4');
    expect(nodes).toEqual([
      { node: 'pve1', priority: 2 },
      { node: 'pve2', priority: null },
      { node: 'pve3', priority: 0 },
      { node: 'pve4', priority: null },
    ]);
    expect(groupNodesText(nodes)).toBe('pve1:2,pve2,pve3:0,pve4');
  });

  it.each([
    ['', 'at least one node'],
    ['pve1:-1', "'pve1:-1': the priority must be a non-negative integer"],
    ['pve1:high', 'the priority must be a non-negative integer'],
    ['pve1:1:2', 'the priority must be a non-negative integer'],
    ['pve_1', "'pve_1' is not a node name"],
    [':3', "'' is not a node name"],
    ['pve1,pve1:2', "node 'pve1' is given twice"],
  ])('refuses %j saying %s', (text, message) => {
    expect(() => parseGroupNodes(text)).toThrow(GroupNodesError);
    expect(() => parseGroupNodes(text)).toThrow(message);
  });
});
