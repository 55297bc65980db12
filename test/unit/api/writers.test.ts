// What topogate's writers put in an object, the kind's schema accepts: the probe's NetworkTopology status
// (measured links, degraded nodes, derived tiers, mislabeled nodes) and the EtcdCluster object placement
// writes, checked against the JSON Schemas the CRDs come from (TypeBox's validator).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import Schema from 'typebox/schema';
import { documentSchema } from '../../../src/api/crd.ts';
import { etcdClusterDefinition } from '../../../src/api/v1alpha1/etcdcluster.ts';
import { networkTopologyStatus } from '../../../src/api/v1alpha1/networktopology.ts';
import { aggregate } from '../../../src/probe/aggregate.ts';
import { withBandwidth } from '../../../src/probe/summary.ts';
import { derivedStatus } from '../../../src/probe/tiers.ts';
import { etcdClusterObject } from '../../../src/topology/etcd/place.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';

/** The violations of `schema` by `value`, as "instancePath: message". */
function violations(schema: object, value: unknown): string[] {
  const [valid, errors] = Schema.Compile(schema as never).Errors(value);
  return valid ? [] : errors.map((error) => `${error.instancePath || '/'}: ${error.message}`);
}

test('the probe writes a NetworkTopology status the schema accepts', () => {
  const nodes = ['a', 'b'].flatMap((zone) => Array.from({ length: 5 }, (_, i) => ({ name: `${zone}${i}`, zone })));
  const buckets = new Map([[100, 5]]);
  const measured = aggregate(
    nodes.map(({ name, zone }) =>
      withBandwidth({ node: name, zone, zones: [{ zone: zone === 'a' ? 'b' : 'a', buckets }] }, new Map([['b', 9.5]])),
    ),
  );
  const pairs = nodes.flatMap((x, i) =>
    nodes.slice(i + 1).map((y) => ({ a: x.name, b: y.name, rttMs: x.zone === y.zone ? 0.1 : 1 })),
  );
  const zoneOf = new Map(nodes.map(({ name, zone }) => [name, name === 'b4' ? 'zone-a' : `zone-${zone}`]));
  const derived = derivedStatus(pairs, zoneOf);
  assert.ok(derived && derived.tiers.length > 0 && derived.mislabeled.length > 0, 'every part of the status is there');
  const status = { observedAt: new Date(0).toISOString(), ...measured, ...derived };
  assert.deepEqual(violations(networkTopologyStatus, status), []);
  // The check can fail: a negative RTT is refused.
  const negative = { ...status, links: [{ ...measured.links[0]!, rttMs: -1 }] };
  assert.notDeepEqual(violations(networkTopologyStatus, negative), []);
});

test('etcd placement writes an EtcdCluster the schema accepts', () => {
  const object = etcdClusterObject(
    [
      {
        endpoint: 'http://10.0.0.1:2381',
        metrics: { id: 'aa', isLeader: true, hasLeader: true, peerRttMs: { bb: 1 } },
      },
      { endpoint: 'http://10.0.0.2:2381', metrics: { id: 'bb', isLeader: false, peerRttMs: { aa: 1.2 } } },
    ],
    [],
    buildSnapshot([], { now: 0 }).nodes,
  );
  const schema = documentSchema(etcdClusterDefinition);
  assert.deepEqual(violations(schema, object), []);
  assert.notDeepEqual(violations(schema, { ...object, status: { members: [{ isLeader: true }] } }), []);
});
