import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import { parseServeArgs, startTopogate, type RunningTopogate } from '../../../src/cli/serve.ts';
import { postJson } from './https.ts';
import { applyPatch } from './rfc6902.ts';

const realWorld = fileURLToPath(new URL('../../../../shared/fixtures/real-world/', import.meta.url));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(json|ya?ml)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every Pod in the fixtures, and every Pod a workload's template would make. */
function podsIn(value: unknown, found: Record<string, unknown>[]): void {
  if (Array.isArray(value)) return value.forEach((item) => podsIn(item, found));
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, any>;
  if (object.kind === 'Pod' && typeof object.spec === 'object') found.push(object);
  else if (typeof object.template?.spec === 'object' && Array.isArray(object.template.spec.containers))
    found.push({ apiVersion: 'v1', kind: 'Pod', metadata: object.template.metadata ?? {}, spec: object.template.spec });
  for (const child of Object.values(object)) podsIn(child, found);
}

async function realWorldPods(): Promise<{ source: string; pod: Record<string, unknown> }[]> {
  const pods: { source: string; pod: Record<string, unknown> }[] = [];
  for (const file of await filesUnder(realWorld)) {
    if (file.includes('/openapi/') || file.includes('/notes/')) continue;
    const text = await readFile(file, 'utf8');
    const documents = file.endsWith('.json')
      ? [JSON.parse(text)]
      : parseAllDocuments(text).map((document) => document.toJS());
    const found: Record<string, unknown>[] = [];
    podsIn(documents, found);
    found.forEach((pod, index) => pods.push({ source: `${relative(realWorld, file)}#${index}`, pod }));
  }
  return pods;
}

let running: RunningTopogate;
let ca: string;
let certDir: string;

before(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'topogate-serve-'));
  const parsed = parseServeArgs(['--cert-dir', certDir, '--port', '0', '--budget-ms', '60000'], process.cwd(), {});
  assert.ok(parsed.ok);
  running = await startTopogate(parsed.config, { log: pino({ level: 'silent' }), registry: new Registry() });
  ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
});
after(async () => {
  await running.stop();
  await rm(certDir, { recursive: true, force: true });
});

test('the strict RFC 6902 reference behaves as the RFC says', () => {
  assert.deepEqual(applyPatch({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }]), {
    foo: ['bar', 'qux', 'baz'],
  });
  assert.deepEqual(applyPatch({ 'a/b': { '~': 1 } }, [{ op: 'replace', path: '/a~1b/~0', value: 2 }]), {
    'a/b': { '~': 2 },
  });
  assert.throws(() => applyPatch({}, [{ op: 'add', path: '/a/b', value: 1 }]), /"a" does not exist/);
  assert.throws(() => applyPatch({ a: [] }, [{ op: 'add', path: '/a/1', value: 1 }]), /out of bounds/);
  assert.throws(() => applyPatch({ a: 1 }, [{ op: 'remove', path: '/b' }]), /"b" does not exist/);
  assert.throws(() => applyPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]), /test failed/);
});

test("the embedded default's patch applies cleanly to every real-world Pod, in every demo namespace", async () => {
  const pods = await realWorldPods();
  assert.ok(pods.length >= 30, `found only ${pods.length} Pods`);
  const outcomes = { patched: 0, unchanged: 0, denied: 0 };
  let withUnreadArrays = 0;
  for (const { source, pod } of pods) {
    for (const namespace of ['default', 'web', 'ml-training', 'ml-inference']) {
      const review = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: `${source}/${namespace}`,
          kind: { group: '', version: 'v1', kind: 'Pod' },
          resource: { group: '', version: 'v1', resource: 'pods' },
          namespace,
          operation: 'CREATE',
          object: pod,
        },
      };
      const reply = await postJson(running.url, ca, review);
      assert.equal(reply.status, 200, `${source} in ${namespace}: ${reply.text}`);
      const { response } = reply.json();
      assert.equal(response.uid, review.request.uid);
      if (!response.allowed) {
        outcomes.denied++;
        assert.ok(response.status.message.length > 0);
        continue;
      }
      if (response.patch === undefined) {
        outcomes.unchanged++;
        continue;
      }
      outcomes.patched++;
      assert.equal(response.patchType, 'JSONPatch');
      const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
      const mutated = applyPatch(pod, patch) as Record<string, any>;
      assert.notDeepEqual(mutated, pod, `${source} in ${namespace}: a patch that changes nothing`);
      assert.deepEqual(
        mutated.spec.containers,
        (pod as Record<string, any>).spec.containers,
        `${source}: containers are not topogate's to change`,
      );
      // The body reached the decision without these (admission/bytes.ts); the patch still leaves them as they were.
      const original = pod as Record<string, any>;
      assert.deepEqual(mutated.spec.volumes, original.spec.volumes, `${source}: volumes`);
      assert.deepEqual(mutated.metadata?.managedFields, original.metadata?.managedFields, `${source}: managedFields`);
      assert.deepEqual(mutated.status, original.status, `${source}: status`);
      if (original.spec.volumes !== undefined || JSON.stringify(original).includes('"env":[')) withUnreadArrays++;
    }
  }
  assert.ok(outcomes.patched > 0 && outcomes.unchanged > 0, JSON.stringify(outcomes));
  assert.ok(withUnreadArrays >= 10, `only ${withUnreadArrays} patched Pods had volumes or an environment`);
});

test('every example in examples/admission/ gets the answer the README promises', async () => {
  const examples = fileURLToPath(new URL('../../../examples/admission/', import.meta.url));
  const expected: Record<string, (response: Record<string, any>) => void> = {
    'pod-create-web.json': (response) => assert.equal(response.patchType, 'JSONPatch'),
    'pod-create-gpu-training.json': (response) => assert.equal(response.patchType, 'JSONPatch'),
    'pod-create-dry-run.v1beta1.json': (response) => assert.equal(response.patchType, 'JSONPatch'),
    'deployment-create.json': (response) => assert.deepEqual(Object.keys(response).sort(), ['allowed', 'uid']),
    'pod-create-denied.json': (response) => {
      assert.equal(response.allowed, false);
      assert.match(response.status.message, /^policy gpu-training-h100, rule gpu: /);
    },
  };
  assert.deepEqual((await readdir(examples)).sort(), Object.keys(expected).sort());
  for (const [name, check] of Object.entries(expected)) {
    const review = JSON.parse(await readFile(join(examples, name), 'utf8'));
    const reply = await postJson(running.url, ca, review, '?timeout=10s');
    assert.equal(reply.status, 200, name);
    const answer = reply.json();
    assert.equal(answer.apiVersion, review.apiVersion, name);
    assert.equal(answer.response.uid, review.request.uid, name);
    check(answer.response);
  }
});
