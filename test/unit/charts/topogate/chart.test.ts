// What can be checked of charts/topogate without helm (test/e2e/helm.test.ts renders and installs it):
// its CRDs are manifests/crds byte for byte, its version is the package's, and every value in
// values.yaml is described by values.schema.json.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const chart = `${root}charts/topogate/`;
const read = (path: string) => readFileSync(path, 'utf8');

test('the chart’s CRDs are manifests/crds, byte for byte', () => {
  const files = readdirSync(`${root}manifests/crds`).sort();
  assert.deepEqual(readdirSync(`${chart}files/crds`).sort(), files);
  for (const file of files)
    assert.equal(
      read(`${chart}files/crds/${file}`),
      read(`${root}manifests/crds/${file}`),
      `charts/topogate/files/crds/${file} differs from manifests/crds: npm run generate`,
    );
});

test('the chart’s RBAC and probe DaemonSet are manifests/’ files, byte for byte', () => {
  const files = readdirSync(`${chart}files/manifests`).sort();
  assert.deepEqual(files, [
    'controlplane-rbac.yaml',
    'policy-writer-rbac.yaml',
    'probe-daemonset.yaml',
    'probe-rbac.yaml',
    'rbac.yaml',
  ]);
  for (const file of files)
    assert.equal(
      read(`${chart}files/manifests/${file}`),
      read(`${root}manifests/${file}`),
      `charts/topogate/files/manifests/${file} differs from manifests/: npm run generate`,
    );
});

test('the chart’s version and appVersion are package.json’s', () => {
  const { version } = JSON.parse(read(`${root}package.json`)) as { version: string };
  const meta = parse(read(`${chart}Chart.yaml`)) as { version: string; appVersion: string };
  assert.equal(meta.version, version);
  assert.equal(meta.appVersion, version);
});

type Schema = { properties?: Record<string, Schema>; $ref?: string; additionalProperties?: boolean | Schema };

test('every key of values.yaml is described by values.schema.json', () => {
  const schema = JSON.parse(read(`${chart}values.schema.json`)) as Schema & { definitions: Record<string, Schema> };
  const resolve = (node: Schema): Schema =>
    node.$ref ? schema.definitions[node.$ref.replace('#/definitions/', '')]! : node;
  const undescribed: string[] = [];
  const walk = (values: unknown, node: Schema, path: string) => {
    if (values === null || typeof values !== 'object' || Array.isArray(values)) return;
    for (const [key, value] of Object.entries(values)) {
      const child = resolve(node).properties?.[key];
      if (child) walk(value, child, `${path}${key}.`);
      else if (resolve(node).additionalProperties === false || resolve(node).properties !== undefined)
        undescribed.push(`${path}${key}`);
    }
  };
  walk(parse(read(`${chart}values.yaml`)), schema, '');
  assert.deepEqual(undescribed, []);
});
