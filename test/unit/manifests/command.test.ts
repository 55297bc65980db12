// `topogate manifests`, run in-process: the same objects as manifests/, made
// ready for an install (CA bundle, URL, namespace), and clear errors.

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import forge from 'node-forge';
import { parseAllDocuments } from 'yaml';
import { main } from '../../../src/cli/main.ts';
import { customize, defaultNamespace, manifestsDir, readManifests } from '../../../src/cli/manifests.ts';
import type { KubeObject } from '../../../src/kube/types.ts';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(args: readonly string[], cwd: string): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const collected = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => (collected.stdout += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (collected.stderr += chunk.toString()));
  const code = await main(['manifests', ...args], { stdout, stderr, stdin: new PassThrough(), cwd });
  return { code, ...collected };
}

function documents(yaml: string): Record<string, any>[] {
  return parseAllDocuments(yaml).map((document) => {
    assert.deepEqual(document.errors, []);
    return document.toJS() as Record<string, any>;
  });
}

const webhookOf = (objects: Record<string, any>[]) =>
  objects.find((object) => object.kind === 'MutatingWebhookConfiguration')!.webhooks[0];

function selfSignedCaPem(): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  certificate.serialNumber = '01';
  certificate.validity.notBefore = new Date();
  certificate.validity.notAfter = new Date(Date.now() + 86_400_000);
  const subject = [{ name: 'commonName', value: 'topogate test CA' }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([{ name: 'basicConstraints', cA: true }]);
  certificate.sign(
    forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
    forge.md.sha256.create(),
  );
  return forge.pki.certificateToPem(certificate);
}

describe('topogate manifests', () => {
  let dir = '';
  let caPem = '';
  let expected: KubeObject[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'topogate-manifests-'));
    caPem = selfSignedCaPem();
    await writeFile(join(dir, 'ca.crt'), caPem);
    await writeFile(
      join(dir, 'not-a-cert.pem'),
      '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n',
    );
    expected = await readManifests(manifestsDir);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('prints the objects of manifests/, in order, as multi-document YAML', async () => {
    const result = await run([], dir);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(documents(result.stdout), expected);
    assert.equal(webhookOf(documents(result.stdout)).clientConfig.caBundle, undefined);
  });

  test('--ca fills every webhook caBundle with the base64 of the CA file (a path relative to the working directory)', async () => {
    const result = await run(['--ca', 'ca.crt'], dir);
    assert.equal(result.code, 0, result.stderr);
    const clientConfig = webhookOf(documents(result.stdout)).clientConfig;
    assert.equal(Buffer.from(clientConfig.caBundle, 'base64').toString(), caPem);
    assert.equal(clientConfig.service.name, 'topogate', 'the service stays without --url');
  });

  test('--url replaces the service with the URL', async () => {
    const result = await run(['--url', 'https://127.0.0.1:9443/mutate', '--ca', join(dir, 'ca.crt')], dir);
    assert.equal(result.code, 0, result.stderr);
    const clientConfig = webhookOf(documents(result.stdout)).clientConfig;
    assert.deepEqual(Object.keys(clientConfig).sort(), ['caBundle', 'url']);
    assert.equal(clientConfig.url, 'https://127.0.0.1:9443/mutate');
  });

  test('--namespace moves the install, the webhook exclusion and the bindings, but not the kube-system Role', async () => {
    const result = await run(['--namespace', 'platform-webhooks'], dir);
    assert.equal(result.code, 0, result.stderr);
    const objects = documents(result.stdout);
    assert.doesNotMatch(result.stdout, new RegExp(defaultNamespace));
    assert.equal(objects.find((object) => object.kind === 'Namespace')!.metadata.name, 'platform-webhooks');
    assert.equal(objects.find((object) => object.kind === 'Deployment')!.metadata.namespace, 'platform-webhooks');
    const webhook = webhookOf(objects);
    assert.equal(webhook.clientConfig.service.namespace, 'platform-webhooks');
    assert.deepEqual(webhook.namespaceSelector.matchExpressions[0].values, ['kube-system', 'platform-webhooks']);
    for (const kind of ['Role', 'RoleBinding']) {
      const object = objects.find((each) => each.kind === kind)!;
      assert.equal(object.metadata.namespace, 'kube-system', kind);
    }
    assert.equal(objects.find((object) => object.kind === 'RoleBinding')!.subjects[0].namespace, 'platform-webhooks');
  });

  test('customize leaves its input as it was', () => {
    const before = structuredClone(expected);
    customize(expected, { caPem, url: 'https://example.test/mutate', namespace: 'elsewhere' });
    assert.deepEqual(expected, before);
  });

  const usageErrors: [string, string[], RegExp][] = [
    ['a plain-http URL', ['--url', 'http://127.0.0.1:9443/mutate'], /--url must use https/],
    ['a URL with a query', ['--url', 'https://127.0.0.1/mutate?x=1'], /query or fragment/],
    ['a URL with user information', ['--url', 'https://user:pw@127.0.0.1/mutate'], /user information/],
    ['not a URL', ['--url', 'topogate:8443'], /is not a URL|must use https/],
    [
      'an invalid namespace',
      ['--namespace', 'Topogate_System'],
      /--namespace: "Topogate_System" is not a valid DNS-1123 label/,
    ],
    ['an unknown flag', ['--ca-file', 'ca.crt'], /Unknown option '--ca-file'/],
    ['a positional argument', ['extra'], /Unexpected argument 'extra'/],
  ];
  for (const [what, args, message] of usageErrors) {
    test(`usage error, exit 2: ${what}`, async () => {
      const result = await run(args, dir);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, message);
    });
  }

  test('a missing CA file fails with exit 1, saying which file', async () => {
    const result = await run(['--ca', 'missing.crt'], dir);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /cannot read the CA file: .*missing\.crt/);
  });

  test('a CA file that is not a certificate fails with exit 1', async () => {
    const result = await run(['--ca', 'not-a-cert.pem'], dir);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /not-a-cert\.pem is not a PEM certificate/);
  });
});
