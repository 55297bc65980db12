import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { parseAllDocuments } from 'yaml';
import { handleAdmission } from '../../../src/admission/handler.ts';
import { explain as explainCommand, mutate as mutateCommand } from '../../../src/cli/mutate.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { claimFacts, type ClaimKind } from '../../../src/kube/claimFacts.ts';
import { decideClaim } from '../../../src/policy/claims.ts';
import { compile } from '../../../src/policy/compiler.ts';
import type { SchedulingPolicy } from '../../../src/policy/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { runCommand } from '../cli/cli-io.ts';
import { NOW, policy } from './engine-cluster.ts';

const dra = new URL('../../../../shared/fixtures/real-world/dra/', import.meta.url);

function fixture(file: string, kind: string): KubeObject {
  const documents = parseAllDocuments(readFileSync(new URL(file, dra), 'utf8')).map((d) => d.toJS() as KubeObject);
  return documents.find((document) => document?.kind === kind)!;
}

const template = () =>
  fixture('dra-example-driver.partitionable-devices.count2.v1.multi.yaml', 'ResourceClaimTemplate');
const aligned = () => fixture('ai-on-gke.gpu-nic-cpu.matchAttribute-pcieRoot.ResourceClaim.v1.yaml', 'ResourceClaim');
const mig = () =>
  fixture('nvidia-dra-driver.gpu-test4.mig-4requests-matchAttribute.v1.multi.yaml', 'ResourceClaimTemplate');

const pcie = (extra: Partial<SchedulingPolicy> = {}) =>
  policy('align', { dra: { alignBy: 'resource.kubernetes.io/pcieRoot' } }, extra);

function run(kind: ClaimKind, claim: KubeObject, policies: SchedulingPolicy[], namespace: string) {
  const decision = decideClaim(claimFacts(claim, kind, namespace), compile(policies, buildSnapshot([], { now: NOW })));
  const after = fastJsonPatch.applyPatch(structuredClone(claim), structuredClone(decision.patch) as never, true, false)
    .newDocument as any;
  return { decision, after };
}

describe('the dra rule on claims', () => {
  test('a template without constraints gets one over all its requests, under spec.spec.devices', () => {
    const { decision, after } = run('ResourceClaimTemplate', template(), [pcie()], 'partitionable-devices');
    assert.deepEqual(after.spec.spec.devices.constraints, [
      { requests: ['gpu-partition'], matchAttribute: 'resource.kubernetes.io/pcieRoot' },
    ]);
    assert.deepEqual(decision.applied, ['align']);
    assert.deepEqual(decision.auditAnnotations.policies, 'align');
  });

  test('a claim with other constraints gets one appended, with every request named', () => {
    const claim = aligned();
    claim.spec = structuredClone(claim.spec);
    (claim.spec as any).devices.constraints = [
      { requests: ['cpu-req', 'nic-req'], matchAttribute: 'dra.net/numaNode' },
    ];
    const { after } = run('ResourceClaim', claim, [pcie()], 'default');
    assert.deepEqual(after.spec.devices.constraints, [
      { requests: ['cpu-req', 'nic-req'], matchAttribute: 'dra.net/numaNode' },
      { requests: ['gpu-req', 'nic-req', 'cpu-req'], matchAttribute: 'resource.kubernetes.io/pcieRoot' },
    ]);
  });

  test('an equal constraint (same attribute over the same requests, or over all) leaves the claim alone', () => {
    const claim = aligned();
    (claim.spec as any).devices.constraints = [
      { requests: ['cpu-req', 'gpu-req', 'nic-req'], matchAttribute: 'resource.kubernetes.io/pcieRoot' },
    ];
    const same = run('ResourceClaim', claim, [pcie()], 'default').decision;
    assert.deepEqual(same.patch, []);
    assert.ok(same.warnings.some((w) => w.includes('already aligns by resource.kubernetes.io/pcieRoot')));
    const all = run(
      'ResourceClaimTemplate',
      mig(),
      [policy('p', { dra: { alignBy: 'gpu.nvidia.com/parentUUID' } })],
      'gpu-test4',
    );
    assert.deepEqual(all.decision.patch, []);
  });

  test('a bare attribute name is the standard one; the namespace fields decide, Pod fields are not asked', () => {
    const numa = policy('numa', { dra: { alignBy: 'numaNode' } }, { match: { namespaces: ['partitionable-*'] } });
    const { after } = run('ResourceClaimTemplate', template(), [numa], 'partitionable-devices');
    assert.equal(after.spec.spec.devices.constraints[0].matchAttribute, 'resource.kubernetes.io/numaNode');
    assert.deepEqual(run('ResourceClaimTemplate', template(), [numa], 'other').decision.patch, []);
    const podOnly = policy(
      'p',
      { dra: { alignBy: 'numaNode' } },
      { match: { podSelector: { matchLabels: { a: 'b' } } } },
    );
    assert.equal(run('ResourceClaimTemplate', template(), [podOnly], 'x').decision.patch.length, 1);
  });

  test('the admission handler routes claim CREATEs to the dra rule, and nothing else', () => {
    const compiled = compile([pcie()], buildSnapshot([], { now: NOW }));
    const decideClaimIn = (request: Parameters<typeof decideClaim>[0]) => decideClaim(request, compiled);
    const review = (operation: string, kind = 'ResourceClaimTemplate') => ({
      uid: 'u',
      kind: { group: 'resource.k8s.io', version: 'v1', kind },
      resource: { group: 'resource.k8s.io', version: 'v1', resource: `${kind.toLowerCase()}s` },
      namespace: 'partitionable-devices',
      operation,
      object: template(),
    });
    const decide = () => assert.fail('a claim is not a Pod');
    const created = handleAdmission(review('CREATE'), { decide, decideClaim: decideClaimIn });
    assert.equal(created.outcome, 'patched');
    assert.equal(created.answer.patch[0]?.path, '/spec/spec/devices/constraints');
    assert.equal(handleAdmission(review('UPDATE'), { decide, decideClaim: decideClaimIn }).outcome, 'allowed');
    assert.equal(handleAdmission(review('CREATE'), { decide }).outcome, 'allowed');
  });
});

test('mutate and explain take claims: the constraint, and which policy added it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'topogate-claims-'));
  writeFileSync(
    join(dir, 'p.yaml'),
    'apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: align}\nspec:\n  rules: {dra: {alignBy: numaNode}}\n',
  );
  writeFileSync(join(dir, 't.yaml'), 'apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n');
  const claim = fileURLToPath(new URL('ai-on-gke.gpu-nic-cpu.matchAttribute-pcieRoot.ResourceClaim.v1.yaml', dra));
  const flags = ['--policies', 'p.yaml', '--topology', 't.yaml'];
  const mutated = await runCommand(mutateCommand, dir, [...flags, '-o', 'json', claim]);
  assert.equal(mutated.code, 0, mutated.stderr);
  assert.deepEqual(JSON.parse(mutated.stdout).spec.devices.constraints.at(-1), {
    requests: ['gpu-req', 'nic-req', 'cpu-req'],
    matchAttribute: 'resource.kubernetes.io/numaNode',
  });
  const explained = await runCommand(explainCommand, dir, [...flags, claim]);
  assert.match(explained.stdout, /policy align \(priority 0\): applied\n\s+dra: added/);
  assert.match(
    explained.stdout,
    /constraint matchAttribute resource.kubernetes.io\/numaNode over \[gpu-req, nic-req, cpu-req\]/,
  );
});
