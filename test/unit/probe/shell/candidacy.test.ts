// Only a few agents campaign for the writer's Lease: the same few on every
// agent, moved little by a node joining or leaving, never a dead or unready
// one; and campaigning follows candidacy, except that a holder keeps its Lease.

import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import pino from 'pino';
import type { LeaderElection } from '../../../../src/kube-client/lease.ts';
import { CANDIDATE_COUNT, campaignPool, candidateNodes } from '../../../../src/probe/candidates.ts';
import { startCandidacy } from '../../../../src/probe/shell/candidacy.ts';

const nodes = Array.from({ length: 1000 }, (_, index) => `node-${index}`);

describe('the Lease candidates', () => {
  it('are CANDIDATE_COUNT nodes, the same whatever order the agents list them in', () => {
    const chosen = candidateNodes('topogate-probe', nodes);
    assert.equal(chosen.size, CANDIDATE_COUNT);
    assert.deepEqual([...candidateNodes('topogate-probe', [...nodes].reverse())].sort(), [...chosen].sort());
    for (const node of chosen) assert.ok(nodes.includes(node));
  });

  it('change by at most one seat when a node joins or leaves', () => {
    const before = candidateNodes('topogate-probe', nodes);
    const leaving = [...before][0]!;
    const after = candidateNodes(
      'topogate-probe',
      nodes.filter((node) => node !== leaving),
    );
    assert.equal([...after].filter((node) => !before.has(node)).length, 1);
    assert.ok(!after.has(leaving));
    const joined = candidateNodes('topogate-probe', [...nodes, 'node-new']);
    assert.ok([...joined].filter((node) => !before.has(node)).length <= 1);
  });

  it('spread over the nodes: different Leases pick different nodes', () => {
    const picked = new Set<string>();
    for (let lease = 0; lease < 50; lease++)
      for (const node of candidateNodes(`lease-${lease}`, nodes)) picked.add(node);
    assert.ok(picked.size > 100, `50 Leases picked only ${picked.size} distinct nodes`);
  });

  it('take every node when there are fewer than CANDIDATE_COUNT', () => {
    assert.deepEqual([...candidateNodes('topogate-probe', ['a', 'b'])].sort(), ['a', 'b']);
  });
});

describe('the pool that campaigns', () => {
  const pod = (node: string, phase = 'Running', ready?: string) => ({
    metadata: { name: `probe-${node}` },
    spec: { nodeName: node },
    status: { phase, podIP: '10.0.0.1', ...(ready && { conditions: [{ type: 'Ready', status: ready }] }) },
  });
  const node = (name: string, ready: string) => ({
    metadata: { name },
    status: { conditions: [{ type: 'Ready', status: ready }] },
  });

  it('is this node and the Running, ready probe Pods on ready Nodes', () => {
    const pool = campaignPool(
      'self',
      [pod('a'), pod('b', 'Pending'), pod('c', 'Running', 'False'), pod('d', 'Running', 'True'), pod('e')],
      [node('d', 'True'), node('e', 'Unknown')],
    );
    assert.deepEqual(pool, ['self', 'a', 'd']);
  });
});

describe('campaigning', () => {
  const log = pino({ level: 'silent' });
  const fakeElection = (leader: boolean) => {
    const stopped = { count: 0 };
    const election: LeaderElection = {
      identity: 'me',
      isLeader: () => leader,
      stop: async () => void stopped.count++,
    };
    return { election, stopped };
  };

  it('starts once while a candidate, waits while it cannot know, and stops when it no longer is', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      let candidate: boolean | undefined = undefined;
      const { election, stopped } = fakeElection(false);
      let campaigns = 0;
      const candidacy = startCandidacy({
        isCandidate: () => candidate,
        campaign: () => (campaigns++, election),
        everyMs: 1000,
        log,
      });
      assert.equal(candidacy.campaigning(), false);
      candidate = true;
      mock.timers.tick(1000);
      mock.timers.tick(1000);
      assert.equal(campaigns, 1);
      assert.equal(candidacy.campaigning(), true);
      candidate = false;
      mock.timers.tick(1000);
      await candidacy.stop();
      assert.equal(candidacy.campaigning(), false);
      assert.equal(stopped.count, 1);
    } finally {
      mock.timers.reset();
    }
  });

  it('keeps a holder campaigning when it drops out of the candidates', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      let candidate = true;
      const { election, stopped } = fakeElection(true);
      const candidacy = startCandidacy({ isCandidate: () => candidate, campaign: () => election, everyMs: 1000, log });
      candidate = false;
      mock.timers.tick(3000);
      assert.equal(candidacy.campaigning(), true);
      assert.equal(stopped.count, 0);
      await candidacy.stop();
      assert.equal(stopped.count, 1, 'stopping the agent gives the Lease up');
    } finally {
      mock.timers.reset();
    }
  });
});
