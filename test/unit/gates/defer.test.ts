// When the webhook defers (the decider's choice) and how serve's flags say so.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { parseServeArgs } from '../../../src/cli/serve/args.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import type { Pod } from '../../../src/kube/types.ts';
import { anySourceStale, DEFERRED_ANNOTATION, PLACEMENT_GATE, staleSources } from '../../../src/policy/deferral.ts';
import { RULES } from '../../../src/policy/rules/table.ts';
import type { PolicyProvider } from '../../../src/ports/policies.ts';
import type { SchedulingPolicy } from '../../../src/policy/types.ts';
import { createDecider } from '../../../src/server/decider.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import type { SourceName, SourceStatus, TopologySnapshot } from '../../../src/topology/model.ts';
import type { Readiness } from '../../../src/ports/readiness.ts';
import type { TopologyProvider } from '../../../src/ports/topology.ts';
import { node, NOW } from '../policy/engine-cluster.ts';

const zone = 'topology.kubernetes.io/zone';
const policy: SchedulingPolicy = {
  name: 'zone-a',
  priority: 1,
  onUnsatisfiable: 'Reject',
  rules: { nodeLabels: { required: [{ key: zone, operator: 'In', values: ['a'] }], preferred: [] } },
};
const pod = (annotations: Record<string, string> = {}): Pod => ({
  metadata: { name: 'p', annotations },
  spec: { containers: [{ name: 'c' }] },
});

function deciderOn(snapshot: TopologySnapshot, readiness: Readiness = { ready: true }) {
  return createDecider({
    ...providersFor(snapshot, policy, readiness),
    maxSourceAgeMs: 60_000,
    log: pino({ level: 'silent' }),
    now: () => NOW,
  });
}

function providersFor(snapshot: TopologySnapshot, inForce: SchedulingPolicy, readiness: Readiness = { ready: true }) {
  const topology: TopologyProvider = {
    current: () => snapshot,
    occupancy: () => snapshot.pods,
    readiness: () => readiness,
    subscribe: () => () => {},
    stop: async () => {},
  };
  const policies: PolicyProvider = {
    current: () => ({ version: 1, policies: [inForce] }),
    readiness: () => ({ ready: true }),
    onChange: () => () => {},
    stop: async () => {},
  };
  return { policies, topology };
}

const fresh = buildSnapshot([node('a1', { [zone]: 'a' })], { now: NOW, version: 1 });
const withSource = (name: SourceName, status: Partial<SourceStatus>): TopologySnapshot => ({
  ...fresh,
  sources: new Map([...fresh.sources, [name, { name, synced: true, objects: 1, ...status }]]),
});
const request = (annotations?: Record<string, string>) => podRequest(pod(annotations), 'default');
/** Rules of every kind: staleSources reads which rules a policy writes, not what they say. */
const everyRule = Object.fromEntries(Object.keys(RULES).map((key) => [key, {}])) as SchedulingPolicy['rules'];

describe('the decider defers', () => {
  test('nothing when the model is fit and the budget holds (overrun)', () => {
    assert.equal(deciderOn(fresh).defer(request(), undefined, false), undefined);
  });

  test('when the budget would be overrun, or always', () => {
    assert.equal(deciderOn(fresh).defer(request(), 'late', false)?.deferred, 'budget');
    assert.equal(deciderOn(fresh).defer(request(), undefined, true)?.deferred, 'always');
  });

  test('while the model is not ready, naming why', () => {
    const deferred = deciderOn(fresh, { ready: false, reason: 'nodes not synced' }).defer(request(), undefined, false);
    assert.equal(deferred?.deferred, 'model not ready: nodes not synced');
  });

  test('when a source the matching policy reads is older than --max-source-age, not for a blip, nor for one it does not read', () => {
    const old = withSource('nodes', { updatedAt: NOW - 61_000 });
    assert.equal(deciderOn(old).defer(request(), undefined, false)?.deferred, 'stale: nodes');
    const lost = withSource('nodes', { updatedAt: NOW, staleSince: NOW - 61_000, error: 'HTTP 500' });
    assert.equal(deciderOn(lost).defer(request(), undefined, false)?.deferred, 'stale: nodes');
    const blip = withSource('nodes', { updatedAt: NOW, staleSince: NOW - 2_000, error: 'HTTP 500' });
    assert.equal(deciderOn(blip).defer(request(), undefined, false), undefined);
    const unread = withSource('networkTopologies', { updatedAt: NOW - 3_600_000 });
    assert.equal(deciderOn(unread).defer(request(), undefined, false), undefined);
  });

  test('only after a look at the Pod when some source is stale: none stale, no policy can be', () => {
    const options = { now: NOW, maxSourceAgeMs: 60_000 };
    const cases: [TopologySnapshot, boolean][] = [
      [fresh, false],
      [withSource('nodes', { updatedAt: NOW - 61_000 }), true],
      [withSource('nodes', { updatedAt: NOW, staleSince: NOW - 61_000, error: 'HTTP 500' }), true],
      [withSource('nodes', { updatedAt: NOW, staleSince: NOW - 2_000, error: 'HTTP 500' }), false],
      [withSource('networkTopologies', { updatedAt: NOW - 3_600_000 }), true],
      [withSource('networkTopologies', { updatedAt: NOW - 3_600_000, disabled: 'CRD not installed' }), false],
    ];
    for (const [snapshot, stale] of cases) {
      assert.equal(anySourceStale(snapshot, options), stale);
      // What the shortcut stands for: a policy of every rule finds a stale source exactly then.
      assert.equal(staleSources({ ...policy, rules: everyRule }, snapshot, options).length > 0, stale);
    }
  });

  test('never a Pod the engine leaves alone: bound, or annotated topogate.dev/skip', () => {
    const bound = podRequest({ ...pod(), spec: { ...pod().spec, nodeName: 'a1' } }, 'default');
    assert.equal(deciderOn(fresh).defer(bound, undefined, true), undefined);
    assert.equal(deciderOn(fresh).defer(request({ 'topogate.dev/skip': 'true' }), undefined, true), undefined);
  });

  test('not for an Audit policy, which writes nothing', () => {
    const audited = createDecider({
      ...providersFor(fresh, { ...policy, enforcement: 'Audit' }),
      maxSourceAgeMs: 60_000,
      log: pino({ level: 'silent' }),
      now: () => NOW,
    });
    assert.equal(audited.defer(request(), undefined, true), undefined);
  });

  test('a Pod already deferred (the API server reinvoking) is left as it is', () => {
    const again = deciderOn(fresh).defer(request({ [DEFERRED_ANNOTATION]: 'budget' }), undefined, true);
    assert.deepEqual([again?.deferred, again?.patch], ['budget', []]);
  });

  test('the controller waits while the model is not ready, and decides once it is', () => {
    const created = { spreads: [], schedulerName: undefined, keepUnsatisfiable: false };
    assert.deepEqual(deciderOn(fresh, { ready: false, reason: 'starting' }).place(request(), created), {
      wait: 'model not ready: starting',
    });
    const decision = deciderOn(fresh).place(request(), created);
    assert.ok('applied' in decision);
    assert.deepEqual(decision.applied, ['zone-a']);
  });

  test('a synchronous decision removes the gate the second plane gave', () => {
    const gated = podRequest(
      { ...pod(), spec: { ...pod().spec, schedulingGates: [{ name: PLACEMENT_GATE }] } },
      'default',
    );
    const decision = deciderOn(fresh).decide(gated);
    assert.deepEqual(decision.patch.at(-1), { op: 'remove', path: '/spec/schedulingGates/0' });
  });
});

describe('serve --defer and --defer-max', () => {
  const parse = (...args: string[]) => parseServeArgs(args, '/', {});

  test('default to overrun and 60s', () => {
    const parsed = parse();
    assert.ok(parsed.ok);
    assert.deepEqual([parsed.config.defer, parsed.config.deferMaxMs], ['overrun', 60_000]);
  });

  test('take never, always and a duration', () => {
    const parsed = parse('--defer', 'always', '--defer-max', '2m');
    assert.ok(parsed.ok);
    assert.deepEqual([parsed.config.defer, parsed.config.deferMaxMs], ['always', 120_000]);
  });

  test('refuse anything else, saying what they take', () => {
    assert.deepEqual(parse('--defer', 'sometimes'), {
      ok: false,
      message: '--defer must be one of never, overrun, always, not "sometimes"',
    });
    const zero = parse('--defer-max', '0');
    assert.ok(!zero.ok);
    assert.match(zero.message, /--defer-max must be a duration/);
  });
});
