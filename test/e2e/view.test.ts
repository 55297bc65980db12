// The topology view in a real browser (Debian's chromium, driven by
// playwright-core): on the demo cluster with measured links the map renders
// its zones, nodes and links, a new decision appears without a reload and a
// click on its Pod shows its record and the text `topogate explain` prints;
// on a live control plane a Node added through the API server and a link
// measured anew appear without a reload. No console errors; screenshots are
// kept in test-artifacts/.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Cluster } from './harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk } from './harness/kube.ts';
import { freePort } from './harness/ports.ts';
import { sharedCluster } from './harness/shared.ts';
import type { Topogate } from './harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate } from './harness/topogate.ts';
import { waitFor } from './harness/wait.ts';
import { repoRoot } from './harness/versions.ts';

const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const artifacts = join(repoRoot, 'test-artifacts');
// The flags this machine's closed network needs (docs/view.md).
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
before(async () => {
  mkdirSync(artifacts, { recursive: true });
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
});
after(() => browser?.close());

/** A page whose console errors and uncaught exceptions are collected. */
async function openPage(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(url);
  await page.waitForSelector('#zones table');
  return { page, errors };
}

/** The demo cluster, its links measured (status) but for one declared, a node degraded. */
function measuredDemo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'topogate-view-topology-'));
  const demo = join(repoRoot, 'examples', 'cluster');
  for (const file of readdirSync(demo))
    if (file !== 'network-topology.yaml') copyFileSync(join(demo, file), join(dir, file));
  // Racks by role (control plane, CPU, GPU), so that the map has a tier between zones and nodes.
  const nodes = readFileSync(join(dir, 'nodes.yaml'), 'utf8').replace(
    /^( +)kubernetes\.io\/hostname: ((cp|cpu|gpu)-\S+)$/gm,
    (line, indent: string, _name: string, role: string) => `${line}\n${indent}topogate.dev/rack: ${role}-rack`,
  );
  writeFileSync(join(dir, 'nodes.yaml'), nodes);
  const link = (from: string, to: string, rttMs: number, rttP99Ms: number, bandwidthGbps: number) => ({
    from,
    to,
    rttMs,
    rttP99Ms,
    bandwidthGbps,
    samples: 600,
  });
  writeFileSync(
    join(dir, 'network-topology.json'),
    JSON.stringify({
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'NetworkTopology',
      metadata: { name: 'default' },
      spec: {
        domainLabel: 'topology.kubernetes.io/zone',
        links: [{ from: 'us-east-1a', to: 'us-east-1c', rttMs: 1.4, bandwidthGbps: 25 }],
      },
      status: {
        links: [link('us-east-1a', 'us-east-1b', 0.42, 0.9, 92), link('us-east-1b', 'us-east-1c', 2.6, 4.8, 38)],
        degradedNodes: [{ name: 'cpu-1b-2', rttMs: 3.9, zoneRttMs: 0.2 }],
      },
    }),
  );
  return dir;
}

describe('the demo cluster (npm start -- --ui-listen)', () => {
  let child: ChildProcess;
  let webhook: string;
  let view: string;
  let ca: string;
  let certDir: string;
  let topology: string;
  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'topogate-view-'));
    topology = measuredDemo();
    child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'topogate.ts'),
        'serve',
        '--port',
        '0',
        '--cert-dir',
        certDir,
        '--topology',
        topology,
        '--ui-listen',
        '127.0.0.1:0',
        // The default 5 ms budget is for a webhook with a core of its own; beside chromium on a busy
        // machine the one review below could take the budget's safe path, which no view lists.
        '--budget-ms',
        '1000',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    [webhook, view] = await new Promise<[string, string]>((resolve, reject) => {
      let found: { webhook?: string; view?: string } = {};
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'webhook serving') found = { ...found, webhook: entry.url };
        if (entry.msg === 'topology view serving') found = { ...found, view: entry.url };
        if (found.webhook && found.view) resolve([found.webhook, found.view]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
  });
  after(() => child?.kill('SIGTERM'));

  /** POSTs an AdmissionReview to the webhook; its answer's body. */
  function admit(review: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const req = request(
        new URL('/mutate', webhook),
        { method: 'POST', ca, headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end(review);
    });
  }

  test('the map: zones, nodes, measured and declared links, the etcd leader and a degraded node', async () => {
    const { page, errors } = await openPage(view);
    const regions = page.locator('#regions .region.zone');
    assert.deepEqual(
      await page
        .locator('#regions .region.zone[data-region="us-east-1b"] .region.tier')
        .evaluateAll((racks) => racks.map((rack) => rack.getAttribute('data-region'))),
      ['cp-rack', 'cpu-rack', 'gpu-rack'],
      'racks from the topogate.dev/rack label, between zones and nodes',
    );
    assert.deepEqual(await regions.evaluateAll((zones) => zones.map((zone) => zone.getAttribute('data-region'))), [
      'us-east-1a',
      'us-east-1b',
      'us-east-1c',
    ]);
    assert.equal(await page.locator('#regions button.node').count(), 13, 'every node of the demo is drawn');
    assert.equal(await page.locator('#regions button.node.cordoned').count(), 1);
    assert.equal(
      await page.locator('#regions button.node.degraded').getAttribute('data-node'),
      'cpu-1b-2',
      'the degraded node is marked',
    );
    const measured = page.locator('#links g.link.measured');
    assert.equal(await measured.count(), 2);
    assert.equal(
      await page
        .locator('#links g.link.measured[data-from="us-east-1a"][data-to="us-east-1b"]')
        .getAttribute('aria-label'),
      'us-east-1a ↔ us-east-1b: measured, p50 0.42 ms / p99 0.9 ms, 92 Gbps',
    );
    assert.match((await page.locator('#links g.link.far text').textContent()) ?? '', /● p50 2\.6 ms \/ p99 4\.8 ms/);
    assert.equal(await page.locator('#links g.link.declared').count(), 1, 'the declared link is drawn apart');
    assert.match(
      await page.locator('#leader').innerText(),
      /etcd leader: cp-us-east-1b on node cp-us-east-1b in us-east-1b/,
    );
    // Keyboard: a node is a button; Enter opens its record.
    await page.locator('#regions button.node[data-node="cp-us-east-1b"]').focus();
    await page.keyboard.press('Enter');
    await page.locator('#node h3', { hasText: 'Node cp-us-east-1b' }).waitFor({ timeout: 30_000 });
    assert.match(await page.locator('#node').innerText(), /etcd\s+yes/);
    await page
      .locator('section', { has: page.locator('#map-h') })
      .screenshot({ path: join(artifacts, 'view-map.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a new decision appears without a reload; a click on its Pod shows its record and explain', async () => {
    const { page, errors } = await openPage(view);
    const text = (id: string) => page.locator(`#${id}`).innerText();
    assert.match(await text('zones'), /13 nodes in 3 zones/);
    assert.equal(
      await page.locator('#rtt td[aria-label="us-east-1a to us-east-1c: 1.4 ms, declared, 25 Gbps"]').count(),
      1,
      'each heat map cell says its value in text',
    );
    assert.match(await text('gpus'), /NVIDIA-H100-80GB-HBM3/);
    assert.match(await text('placements'), /No placements to show: nothing yet: no Pod has been decided/);
    assert.equal(await page.locator('#decisions table').count(), 0, 'never a header-only table');

    const review = readFileSync(join(repoRoot, 'examples', 'admission', 'pod-create-web.json'), 'utf8');
    const answer = await admit(review);
    const { response } = JSON.parse(answer) as { response: { allowed: boolean; patch?: string } };
    assert.ok(response.allowed && response.patch !== undefined, `the review was decided: ${answer.slice(0, 400)}`);
    await page.locator('#decisions td', { hasText: 'web-zone-spread' }).first().waitFor({ timeout: 10_000 });
    assert.match(await text('placements'), /Placed by web-zone-spread/);
    await page.locator('#placements button.decision').first().click();
    const explained = page.locator('#decision pre.explain');
    await explained.waitFor({ timeout: 10_000 });
    assert.match(await page.locator('#decision table').innerText(), /webhook\s+patched\s+web-zone-spread/);
    const pod = JSON.parse(review).request.object;
    const cli = execFileSync(
      process.execPath,
      [
        join(repoRoot, 'bin', 'topogate.ts'),
        'explain',
        '--topology',
        topology,
        '--policies',
        join(repoRoot, 'policies'),
        '-',
      ],
      { input: JSON.stringify({ ...pod, metadata: { ...pod.metadata, namespace: 'web' } }), encoding: 'utf8' },
    );
    // The snapshot's id is the process's own; everything else is the very text the CLI prints.
    const unsnapshotted = (text: string) => text.trim().replace(/topology snapshot \S+/, 'topology snapshot …');
    assert.equal(unsnapshotted((await explained.textContent()) ?? ''), unsnapshotted(cli), 'the text the CLI prints');
    await page.screenshot({ path: join(artifacts, 'view-demo.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a page open through hundreds of updates does not grow', async (t) => {
    const { page, errors } = await openPage(view);
    const review = readFileSync(join(repoRoot, 'examples', 'admission', 'pod-create-web.json'), 'utf8');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    /** DOM nodes and JS heap after a garbage collection, once the page has drawn the last update. */
    const measure = async (updates: number) => {
      for (let n = 0; n < updates; n++) await admit(review.replace('"uid": "0f6c', `"uid": "${n}-0f6c`));
      await page.waitForTimeout(1500);
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const metric = (name: string) => metrics.find((m) => m.name === name)!.value;
      return {
        nodes: metric('Nodes'),
        heap: metric('JSHeapUsedSize'),
        status: await page.locator('#status').innerText(),
      };
    };
    // The ring holds 200 decisions: past it, every update redraws as much as the one before.
    const full = await measure(220);
    const later = await measure(200);
    t.diagnostic(
      `after 220 decisions: ${full.nodes} DOM nodes, ${full.heap} B heap; 200 more: ${later.nodes}, ${later.heap} B`,
    );
    assert.notEqual(later.status, '', 'updates arrived');
    assert.equal(await page.locator('#decisions tbody tr').count(), 200);
    assert.ok(later.nodes <= full.nodes * 1.05, `DOM nodes ${full.nodes} → ${later.nodes}`);
    assert.ok(later.heap <= full.heap * 1.5, `JS heap ${full.heap} → ${later.heap} bytes`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('a live control plane (serve --topology kube --ui-listen)', () => {
  let cluster: Cluster;
  let topogate: Topogate;
  let view: string;
  const zone = 'topology.kubernetes.io/zone';
  const nodes = [
    { name: 'view-a-1', labels: { [zone]: 'view-zone-a', 'topogate.dev/rack': 'rack-1' } },
    { name: 'view-a-2', labels: { [zone]: 'view-zone-a', 'topogate.dev/rack': 'rack-2' } },
    { name: 'view-b-1', labels: { [zone]: 'view-zone-b', 'topogate.dev/rack': 'rack-3' } },
    { name: 'view-b-2', labels: { [zone]: 'view-zone-b', 'topogate.dev/rack': 'rack-4' } },
  ];
  const measure = (rttMs: number, degraded: string[]) =>
    kubectlOk(cluster, [
      'patch',
      'networktopology',
      'default',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: {
          observedAt: new Date().toISOString(),
          links: [{ from: 'view-zone-a', to: 'view-zone-b', rttMs, rttP99Ms: rttMs * 2, samples: 300 }],
          degradedNodes: degraded.map((name) => ({ name, rttMs: 4, zoneRttMs: 0.2 })),
        },
      }),
    ]);
  before(async () => {
    cluster = await sharedCluster('view');
    const port = await freePort();
    view = `http://127.0.0.1:${port}`;
    // The map draws a link between zones that have nodes: both zones start with some, one gains a Node later.
    await createNodes(coreApi(cluster), nodes.slice(0, 3));
    await installTopogateCrds(cluster);
    await applyAll(cluster, [
      {
        apiVersion: 'topogate.dev/v1alpha1',
        kind: 'NetworkTopology',
        metadata: { name: 'default' },
        spec: { domainLabel: zone, links: [{ from: 'view-zone-a', to: 'view-zone-b', rttMs: 5 }] },
      },
    ]);
    await measure(0.5, []);
    topogate = await startTopogate({
      cluster,
      policies: join(repoRoot, 'policies'),
      serveArgs: ['--ui-listen', `127.0.0.1:${port}`],
    });
  });
  after(async () => {
    await topogate?.stop();
    await kubectl(cluster, ['delete', 'networktopology', 'default', '--ignore-not-found']).catch(() => undefined);
    const api = coreApi(cluster);
    for (const node of nodes) await api.deleteNode({ name: node.name }).catch(() => undefined);
    await cluster?.stop();
  });

  test('the map shows its zones, nodes and measured link; a Node and a new measurement appear without a reload', async () => {
    const { page, errors } = await openPage(view);
    const zoneA = page.locator('#regions .region.zone[data-region="view-zone-a"]');
    await zoneA.waitFor({ timeout: 15_000 });
    assert.equal(await zoneA.locator('button.node').count(), 2);
    const link = page.locator('#links g.link[data-from="view-zone-a"][data-to="view-zone-b"]');
    await link.waitFor({ timeout: 15_000 });
    assert.match((await link.getAttribute('aria-label')) ?? '', /measured, p50 0\.5 ms \/ p99 1 ms/);

    // Injected: a Node through the API server, and a new measurement with a degraded node.
    await createNodes(coreApi(cluster), nodes.slice(3));
    await measure(3.5, ['view-a-2']);
    await page
      .locator('#regions .region.zone[data-region="view-zone-b"] button.node[data-node="view-b-2"]')
      .waitFor({ timeout: 15_000 });
    await page.locator('#regions button.node.degraded[data-node="view-a-2"]').waitFor({ timeout: 15_000 });
    await page.locator('#links g.link.far[data-from="view-zone-a"]').waitFor({ timeout: 15_000 });
    assert.match((await link.getAttribute('aria-label')) ?? '', /measured, p50 3\.5 ms \/ p99 7 ms/);
    await page.locator('#trends li.degraded', { hasText: 'view-a-2' }).waitFor({ timeout: 15_000 });
    assert.match(await page.locator('#leader').innerText(), /etcd leader: (unknown — .+|\S+)/);
    // The Nodes just created are API server writes: the collector measures their p99 from its /metrics.
    await page.locator('#controlplane td', { hasText: 'API server write p99' }).waitFor({ timeout: 30_000 });
    assert.match(await page.locator('#controlplane').innerText(), /Measured over \d+ s[\s\S]*API server write p99/);
    await page.screenshot({ path: join(artifacts, 'view-live.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a Deployment's bound Pods per zone and node, with the policy that placed them, as the API server has them", async () => {
    const namespace = 'view-web';
    const api = coreApi(cluster);
    const webhook = await registerWebhook(cluster, topogate);
    try {
      await applyAll(cluster, [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { tier: 'frontend' } } },
      ]);
      const template = {
        metadata: { labels: { app: 'view-web' } },
        spec: { containers: [{ name: 'web', image: 'registry.invalid/web:1' }] },
      };
      // The webhook configuration reaches the admission chain a moment after it is stored.
      await waitFor(
        async () => {
          const dry = await kubectl(
            cluster,
            ['create', '-n', namespace, '--dry-run=server', '-o', 'json', '-f', '-'],
            JSON.stringify({
              apiVersion: 'v1',
              kind: 'Pod',
              spec: template.spec,
              metadata: { name: 'dry', ...template.metadata },
            }),
          );
          return dry.code === 0 && /web-zone-spread/.test(dry.stdout);
        },
        { what: 'web-zone-spread applied to a dry run', timeoutMs: 30_000, intervalMs: 250 },
      );
      await applyAll(cluster, [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'view-web', namespace },
          spec: { replicas: 2, selector: { matchLabels: { app: 'view-web' } }, template },
        },
      ]);
      // The truth: where the scheduler bound the Pods, as the API server has it.
      let bound: string[] = [];
      await waitFor(
        async () => {
          const pods = await api.listNamespacedPod({ namespace, labelSelector: 'app=view-web' });
          bound = pods.items.flatMap((pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
          return bound.length === 2;
        },
        { what: 'both Pods of the Deployment bound', timeoutMs: 60_000, intervalMs: 500 },
      );
      const zoneOf = (node: string) => nodes.find((n) => n.name === node)?.labels[zone];
      assert.deepEqual(bound.map(zoneOf).sort(), ['view-zone-a', 'view-zone-b'], 'one replica per zone');

      const { page, errors } = await openPage(view);
      const chooser = page.locator('#placements select#chooser');
      await chooser.locator(`option[value="${namespace}/Deployment/view-web"]`).waitFor({ state: 'attached' });
      await chooser.selectOption(`${namespace}/Deployment/view-web`);
      const perZone = page.locator('#placement [aria-label="bound Pods per zone"]');
      await page.locator('#placement p', { hasText: '2 bound Pods. Placed by web-zone-spread.' }).waitFor();
      for (const name of ['view-zone-a', 'view-zone-b'])
        assert.equal(
          await perZone.locator('.bar-row', { hasText: name }).locator('.bar-value').innerText(),
          '1 Pods',
          `${name} runs one replica`,
        );
      const perNode = await perZone.locator('.per-node button.pill').allInnerTexts();
      assert.deepEqual(perNode.sort(), bound.map((node) => `${node}: 1`).sort(), 'the nodes the API server names');
      await page.locator('#placement button.decision').first().click();
      await page.locator('#decision pre.explain').waitFor();
      assert.match(await page.locator('#decision table').innerText(), /web-zone-spread/);
      await page.screenshot({ path: join(artifacts, 'view-live-placements.png'), fullPage: true });
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await kubectl(cluster, ['delete', 'namespace', namespace, '--wait=false']);
      await kubectl(cluster, ['delete', 'mutatingwebhookconfiguration', String(webhook.metadata?.name)]);
    }
  });
});
