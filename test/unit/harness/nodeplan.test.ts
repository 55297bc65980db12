// The real nodes' address plan (test/e2e/harness/nodeplan.ts): zones round-robin, one prefix per zone
// holding its nodes and their Pods, so that one rule per direction delays a zone pair.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { network, nodePlan, nodePlans, parseZone, zonePrefix } from '../../e2e/harness/nodeplan.ts';

describe('the real nodes’ address plan', () => {
  test('nodes go to zone-a, zone-b, zone-c round-robin, with names, netns and veths of their own', () => {
    assert.deepEqual(
      nodePlans(4).map((n) => [n.name, n.zone, n.netns, n.routerVeth]),
      [
        ['node-1', 'zone-a', 'topogate-node-1', 'tg-node-1'],
        ['node-2', 'zone-b', 'topogate-node-2', 'tg-node-2'],
        ['node-3', 'zone-c', 'topogate-node-3', 'tg-node-3'],
        ['node-4', 'zone-a', 'topogate-node-4', 'tg-node-4'],
      ],
    );
  });

  test("a node's address and Pod CIDR lie in its zone's prefix, and no two nodes share either", () => {
    const plans = nodePlans(9);
    for (const node of plans) {
      assert.ok(node.ip.startsWith(`${zonePrefix(node.zone)}.0.`), node.ip);
      assert.ok(node.podCidr.startsWith(`${zonePrefix(node.zone)}.`) && node.podCidr.endsWith('.0/24'));
      assert.ok(node.routerVeth.length <= 15, 'a Linux interface name has at most 15 characters');
    }
    assert.equal(new Set(plans.map((n) => n.ip)).size, 9);
    assert.equal(new Set(plans.map((n) => n.podCidr)).size, 9);
    assert.equal(nodePlan(2).ip, '10.201.0.2');
    assert.equal(nodePlan(2).podCidr, '10.201.2.0/24');
  });

  test('every zone prefix is inside the one route the host gets; bad input is refused', () => {
    assert.equal(network.nodesCidr, '10.200.0.0/14');
    for (const zone of ['zone-a', 'zone-b', 'zone-c'] as const) {
      const second = Number(zonePrefix(zone).split('.')[1]);
      assert.ok(second >= 200 && second < 204, zone);
    }
    assert.equal(parseZone('zone-c'), 'zone-c');
    assert.throws(() => parseZone('zone-d'), /unknown zone zone-d/);
    assert.throws(() => nodePlan(0), /no node 0/);
  });
});
