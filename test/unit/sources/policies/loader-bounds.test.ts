// What a policy file can cost: documents and policies are bounded per file
// and in all the files, and the reading stops at the bound instead of reading
// the rest. The webhook reads its files in a worker with a capped heap
// (isolated.ts), so a file that needs more fails with an error, and the last
// good set stays in force while /readyz says why.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { formatPolicyError } from '../../../../src/policy/errors.ts';
import { MAX_DOCUMENTS, MAX_POLICIES, parsePolicies } from '../../../../src/policy/parse.ts';
import { loadPolicies } from '../../../../src/sources/policies/files.ts';
import { createPolicyStore } from '../../../../src/sources/policies/store.ts';
import { policy } from '../../policy/loader-cases.ts';

const spread = 'rules: {spread: [{topologyKey: zone}]}';
const listOf = (count: number, prefix: string) =>
  `apiVersion: v1\nkind: List\nitems:\n${Array.from(
    { length: count },
    (_, index) =>
      `- {apiVersion: topogate.dev/v1alpha1, kind: SchedulingPolicy, metadata: {name: ${prefix}${index}}, spec: ${spread.replace('rules:', '{rules:')}}}\n`,
  ).join('')}`;

test('a file of 100,000 empty documents is read to its bound, with an error there', () => {
  const { policies, errors } = parsePolicies('---\n'.repeat(100_000), 'empty.yaml');
  assert.deepEqual(policies, []);
  assert.deepEqual(errors.map(formatPolicyError), [
    `empty.yaml:${MAX_DOCUMENTS + 1}:1: more than ${MAX_DOCUMENTS} YAML documents: the rest is not read`,
  ]);
});

test('policies are bounded in one file (a List counts its items) and in all the files', async () => {
  const { policies, errors } = parsePolicies(listOf(MAX_POLICIES + 1, 'p'), 'list.yaml');
  assert.equal(policies.length, MAX_POLICIES);
  assert.deepEqual(errors.map(formatPolicyError), [
    `list.yaml:${MAX_POLICIES + 4}:3: more than ${MAX_POLICIES} policies in one file: the rest is not read`,
  ]);

  const dir = await mkdtemp(join(tmpdir(), 'topogate-bounds-'));
  try {
    const half = Math.ceil((MAX_POLICIES + 1) / 2);
    await writeFile(join(dir, 'a.yaml'), listOf(half, 'a'));
    await writeFile(join(dir, 'b.yaml'), listOf(half, 'b'));
    await writeFile(join(dir, 'c.yaml'), policy(spread, 'never-read'));
    const loaded = await loadPolicies([dir]);
    // At the name of the first policy past the bound.
    assert.deepEqual(loaded.errors.map(formatPolicyError), [
      `${join(dir, 'b.yaml')}:${MAX_POLICIES - half + 4}:80: more than ${MAX_POLICIES} policies in all the files: the rest is not read`,
    ]);
    assert.ok(!loaded.policies.some((p) => p.name === 'never-read'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the webhook reads its files in a worker: one that needs more memory fails there, the last good set stays', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-isolated-'));
  const store = await (async () => {
    await writeFile(join(dir, 'good.yaml'), policy(spread, 'good'));
    return createPolicyStore({
      dir,
      log: pino({ level: 'silent' }),
      registry: new Registry(),
      debounceMs: 30,
      isolation: { maxHeapMb: 16 },
    });
  })();
  try {
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['good'],
    );
    // One document, within the bounds on documents and policies, whose syntax tree outgrows a 16 MB heap.
    await writeFile(join(dir, 'huge.yaml'), hugeDocument());
    await store.reload();
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['good'],
    );
    assert.match(
      store.readiness().reason ?? '',
      /^last reload failed: .*reading the policy files needed more than 16 MB of memory; serving policy set version 1$/,
    );
    await rm(join(dir, 'huge.yaml'));
    await store.reload();
    assert.deepEqual(store.readiness(), { ready: true });
  } finally {
    await store.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

/** A 3.5 MB map of 200,000 keys: one document, no policy, far more syntax tree than 16 MB. */
function hugeDocument(): string {
  return `apiVersion: v1\nkind: List\nitems: []\npadding:\n${Array.from({ length: 200_000 }, (_, index) => `  k${index}: v\n`).join('')}`;
}
