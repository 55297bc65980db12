// The image as a cluster would run it, minus the kubelet: `npm run image` builds it (on the local bases,
// since no registry can be reached), podman runs it as the webhook the real API server calls, non-root on
// a read-only root filesystem, with host networking on loopback.

import assert from 'node:assert/strict';
import { chmodSync, chownSync, copyFileSync, cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { buildImage, type BuiltImage } from '../../image/image.ts';
import { podman, podmanOk } from '../../image/podman.ts';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { fleet } from './fixtures/fleet.ts';
import { coreApi, createNodes, kubectl } from './harness/kube.ts';
import { freePort } from './harness/ports.ts';
import { applyAll, installTopogateCrds, issueServingCertificate, topogateCli } from './harness/topogate.ts';
import { httpsGet, waitFor } from './harness/wait.ts';

const policies = fileURLToPath(new URL('./fixtures/policies/', import.meta.url));
const container = `topogate-e2e-image-${process.pid}`;
const webPod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { tier: 'web', app: name } },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});

describe('the image, run by podman as the webhook the real API server calls', { timeout: 900_000 }, () => {
  let image: BuiltImage;
  let cluster: Cluster;
  let url: string;
  let caPem: string;

  const create = async (name: string, ...flags: string[]) => {
    const ran = await kubectl(
      cluster,
      ['create', '-n', 'team-web', '-o', 'json', ...flags, '-f', '-'],
      JSON.stringify(webPod(name)),
    );
    assert.equal(ran.code, 0, ran.stderr);
    return JSON.parse(ran.stdout) as { metadata: { annotations?: Record<string, string> }; spec: any };
  };

  before(async () => {
    image = await buildImage({ progress: new PassThrough().resume() });
    cluster = await startCluster();
    await installTopogateCrds(cluster);
    await createNodes(coreApi(cluster), fleet);
    await applyAll(cluster, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-web' } }]);

    // What the container reads, owned by its user and private to it, as docs/install.md says to do.
    const config = join(cluster.dir, 'image-config');
    await issueServingCertificate(join(config, 'certs'));
    cpSync(policies, join(config, 'policies'), { recursive: true });
    copyFileSync(cluster.kubeconfig, join(config, 'kubeconfig'));
    chmodSync(join(config, 'kubeconfig'), 0o600);
    for (const file of [
      '',
      'kubeconfig',
      'policies',
      'certs',
      ...readdirSync(join(config, 'certs')).map((f) => join('certs', f)),
    ])
      chownSync(join(config, file), 65532, 65532);
    caPem = readFileSync(join(config, 'certs', 'ca.crt'), 'utf8');

    const port = await freePort();
    url = `https://127.0.0.1:${port}`;
    await podmanOk([
      'run',
      '--detach',
      '--name',
      container,
      '--network',
      'host',
      '--read-only',
      '--cap-drop',
      'all',
      '--security-opt',
      'no-new-privileges',
      '--volume',
      `${config}:/config:ro`,
      image.tag,
      'serve',
      '--topology',
      'kube',
      '--kubeconfig',
      '/config/kubeconfig',
      '--policies',
      '/config/policies',
      '--cert-dir',
      '/config/certs',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      // As in the other e2e files: the API server, etcd and the test share two cores with it.
      '--budget-ms',
      '500',
    ]);
    await waitFor(async () => (await httpsGet(`${url}/readyz`, { ca: caPem })).status === 200, {
      what: 'topogate in podman',
      timeoutMs: 60_000,
    });
    const printed = parseAllDocuments(
      await topogateCli(['manifests', '--ca', join(config, 'certs', 'ca.crt'), '--url', `${url}/mutate`]),
    ).map((doc) => doc.toJS() as { kind: string });
    await applyAll(
      cluster,
      printed.filter((o) => o.kind === 'MutatingWebhookConfiguration'),
    );
  });

  after(async () => {
    const logs = await podman(['logs', '--tail', '40', container]);
    if (logs.code === 0) process.stderr.write(`--- the container's last lines\n${logs.stdout}${logs.stderr}\n`);
    await podman(['rm', '--force', '--time', '5', container]);
    await cluster?.stop();
  });

  test('it serves /readyz as user 65532 on a read-only root filesystem', async () => {
    const [inspected] = JSON.parse(await podmanOk(['container', 'inspect', container])) as any[];
    assert.equal(inspected.Config.User, '65532:65532');
    assert.equal(inspected.HostConfig.ReadonlyRootfs, true);
    assert.equal((await podmanOk(['exec', container, 'node', '-p', 'process.getuid()'])).trim(), '65532');
    const write = await podman(['exec', container, 'node', '-e', "require('node:fs').writeFileSync('/app/x', '')"]);
    assert.notEqual(write.code, 0);
    assert.match(write.stderr, /EROFS|read-only file system/);
    assert.equal((await httpsGet(`${url}/readyz`, { ca: caPem })).status, 200);
  });

  test('the API server calls it: a web Pod in a team namespace gets zone-b and the spread', async () => {
    // A webhook configuration reaches the API server's admission chain a moment after it is stored.
    const deadline = Date.now() + 30_000;
    while ((await create('probe', '--dry-run=server')).metadata.annotations?.['topogate.dev/policies'] === undefined) {
      assert.ok(Date.now() < deadline, 'the webhook configuration is not in effect after 30 s');
      await sleep(250);
    }
    const created = await create('web-1');
    assert.match(created.metadata.annotations?.['topogate.dev/policies'] ?? '', /web-zones/);
    const terms = created.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
    assert.deepEqual(
      terms.flatMap((term: any) => term.matchExpressions),
      [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-b'] }],
    );
    assert.equal(created.spec.topologySpreadConstraints[0].topologyKey, 'topology.kubernetes.io/zone');
  });

  test('`serve` with no flags serves the demo on a read-only root: certificates in /tmp, the packaged demo', async () => {
    const demo = `${container}-demo`;
    const port = await freePort();
    try {
      await podmanOk([
        'run',
        '--detach',
        '--name',
        demo,
        '--network',
        'host',
        '--read-only',
        '--cap-drop',
        'all',
        '--security-opt',
        'no-new-privileges',
        image.tag,
        'serve',
        '--port',
        String(port),
      ]);
      const readCa = [
        'exec',
        demo,
        'node',
        '-e',
        "process.stdout.write(require('fs').readFileSync('/tmp/topogate-certs/ca.crt'))",
      ];
      let ca = '';
      await waitFor(
        async () => {
          const read = await podman(readCa);
          ca = read.code === 0 ? read.stdout : '';
          return ca.includes('BEGIN CERTIFICATE');
        },
        { what: "the demo's first-start CA in /tmp/topogate-certs", timeoutMs: 60_000 },
      );
      await waitFor(async () => (await httpsGet(`https://127.0.0.1:${port}/readyz`, { ca })).status === 200, {
        what: 'the demo in podman',
        timeoutMs: 60_000,
      });
      const logs = await podmanOk(['logs', demo]);
      const loaded = logs.split('\n').find((line) => line.includes('topology loaded from files')) ?? '';
      assert.match(loaded, /"\/app\/examples\/cluster"/, 'the packaged demo is its topology');
    } finally {
      await podman(['rm', '--force', '--time', '5', demo]);
    }
  });

  test(`the image is small (${'<'} 200 MB)`, (t) => {
    t.diagnostic(`${image.tag}: ${(image.bytes / 1e6).toFixed(1)} MB, built in ${(image.ms / 1000).toFixed(1)} s`);
    assert.ok(image.bytes < 200e6, `${image.bytes} bytes`);
    const documented = /\*\*Size\*\*: ([\d.]+) MB/.exec(
      readFileSync(new URL('../../docs/install.md', import.meta.url), 'utf8'),
    );
    assert.ok(documented, 'docs/install.md states the size');
    const drift = Math.abs(Number(documented[1]) * 1e6 - image.bytes) / image.bytes;
    assert.ok(
      drift < 0.05,
      `docs/install.md says ${documented[1]} MB, the image is ${(image.bytes / 1e6).toFixed(1)} MB`,
    );
  });
});
