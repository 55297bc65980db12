// The topology view in a real browser (Debian's chromium, driven by
// playwright-core): on the demo cluster it renders the model's values and a
// new decision appears without a reload; on a live control plane a Node added
// through the API server appears without a reload. No console errors;
// screenshots are kept in test-artifacts/.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Cluster } from './harness/cluster.ts';
import { coreApi, createNodes } from './harness/kube.ts';
import { freePort } from './harness/ports.ts';
import { sharedCluster } from './harness/shared.ts';
import type { Topogate } from './harness/topogate.ts';
import { startTopogate } from './harness/topogate.ts';
import { repoRoot } from './harness/versions.ts';

const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const artifacts = join(repoRoot, 'test-artifacts');
// The flags this machine's closed network needs (docs/view.md).
const chromiumArgs = [
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

describe('the demo cluster (npm start -- --ui-listen)', () => {
  let child: ChildProcess;
  let webhook: string;
  let view: string;
  let ca: string;
  before(async () => {
    const certDir = mkdtempSync(join(tmpdir(), 'topogate-view-'));
    child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'topogate.ts'),
        'serve',
        '--port',
        '0',
        '--cert-dir',
        certDir,
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

  test('shows zones, the RTT heat map, GPUs, etcd and policies, and a new decision without a reload', async () => {
    const { page, errors } = await openPage(view);
    const text = (id: string) => page.locator(`#${id}`).innerText();
    assert.match(await text('zones'), /13 nodes in 3 zones/);
    assert.match(await text('rtt'), /0\.9 ms/);
    assert.equal(
      await page.locator('#rtt td[aria-label="us-east-1a to us-east-1c: 1.4 ms, declared, 25 Gbps"]').count(),
      1,
      'each heat map cell says its value in text',
    );
    assert.match(await text('gpus'), /NVIDIA-H100-80GB-HBM3/);
    assert.match(await text('controlplane'), /etcd leader: cp-us-east-1b/);
    assert.match(await text('policies'), /gpu-training-h100/);
    assert.match(await text('decisions'), /No decision yet/);

    const review = readFileSync(join(repoRoot, 'examples', 'admission', 'pod-create-web.json'), 'utf8');
    const answer = await new Promise<string>((resolve, reject) => {
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
    const { response } = JSON.parse(answer) as { response: { allowed: boolean; patch?: string } };
    assert.ok(response.allowed && response.patch !== undefined, `the review was decided: ${answer.slice(0, 400)}`);
    await page.locator('#decisions td', { hasText: 'web-zone-spread' }).first().waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(artifacts, 'view-demo.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('a live control plane (serve --topology kube --ui-listen)', () => {
  let cluster: Cluster;
  let topogate: Topogate;
  let view: string;
  const nodeName = (n: number) => `view-node-${n}`;
  before(async () => {
    cluster = await sharedCluster('view');
    const port = await freePort();
    view = `http://127.0.0.1:${port}`;
    await createNodes(
      coreApi(cluster),
      [1, 2].map((n) => ({ name: nodeName(n), labels: { 'topology.kubernetes.io/zone': 'view-zone' } })),
    );
    topogate = await startTopogate({
      cluster,
      policies: join(repoRoot, 'policies'),
      serveArgs: ['--ui-listen', `127.0.0.1:${port}`],
    });
  });
  after(async () => {
    await topogate?.stop();
    const api = coreApi(cluster);
    for (const n of [1, 2, 3]) await api.deleteNode({ name: nodeName(n) }).catch(() => undefined);
    await cluster?.stop();
  });

  test('a Node created through the API server appears without a reload', async () => {
    const { page, errors } = await openPage(view);
    const zoneRow = page.locator('#zones tr', { hasText: 'view-zone' });
    await zoneRow.waitFor({ timeout: 10_000 });
    const nodesIn = async () => Number((await zoneRow.locator('td').nth(1).innerText()).trim());
    assert.equal(await nodesIn(), 2);
    await createNodes(coreApi(cluster), [
      { name: nodeName(3), labels: { 'topology.kubernetes.io/zone': 'view-zone' } },
    ]);
    for (const deadline = Date.now() + 15_000; (await nodesIn()) !== 3 && Date.now() < deadline;)
      await new Promise((done) => setTimeout(done, 100));
    assert.equal(await nodesIn(), 3);
    // The Nodes just created are API server writes: the collector measures their p99 from its /metrics.
    await page
      .locator('#controlplane td', { hasText: 'API server write p99' })
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined);
    assert.match(await page.locator('#controlplane').innerText(), /Measured over \d+ s[\s\S]*API server write p99/);
    await page.screenshot({ path: join(artifacts, 'view-live.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
