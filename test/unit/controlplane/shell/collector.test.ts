// The collector's shell against an API server that refuses everything and
// endpoints that do not answer: one log line per source and error, a
// readiness detail while staying ready, and no more requests than the
// schedule allows (no hot loop).

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { ControlPlaneCollector } from '../../../../src/controlplane/shell/collector.ts';
import { buildSnapshot } from '../../../../src/topology/build.ts';

let server: Server;
let requests = 0;

before(async () => {
  server = createServer((request, response) => {
    requests++;
    response.writeHead(403, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: `forbidden: ${request.url}`,
        code: 403,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a refusing API server and a dead etcd endpoint: logged once each, said in readiness, retried on schedule only', async () => {
  const { port } = server.address() as AddressInfo;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'not-allowed' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().trim().split('\n'))
        lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  const collector = new ControlPlaneCollector({
    config,
    topology: () => buildSnapshot([], { now: 0 }),
    // Nothing listens on port 9 of loopback (discard): refused at once.
    etcdMetrics: ['http://127.0.0.1:9/metrics'],
    webhookName: 'pods.topogate.dev',
    namespace: 'topogate-system',
    identity: 'unit',
    timing: { intervalMs: 100, timeoutMs: 500, windowMs: 10_000, heartbeatMs: 100 },
    log: pino({ level: 'info' }, sink),
  });
  const sources = ['API server metrics', 'etcd metrics', 'leader Leases', 'heartbeat'];
  const started = performance.now();
  collector.start();
  // At least a second of rounds; on a loaded machine, longer, until every source has failed once.
  await sleep(1_000);
  while (performance.now() - started < 10_000 && !sources.every((s) => lines.some((l) => l.msg.includes(s))))
    await sleep(50);
  await collector.stop();
  const seconds = (performance.now() - started) / 1000;

  const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
  assert.equal(warnings.filter((msg) => msg.includes('API server metrics')).length, 1, warnings.join('\n'));
  assert.match(
    warnings.find((msg) => msg.includes('API server metrics')) ?? '',
    /HTTP 403 \(topogate is not allowed to get \/metrics there\)/,
  );
  assert.equal(warnings.filter((msg) => msg.includes('etcd metrics')).length, 1, warnings.join('\n'));
  assert.match(warnings.find((msg) => msg.includes('etcd metrics')) ?? '', /ECONNREFUSED/);
  assert.equal(warnings.filter((msg) => msg.includes('leader Leases')).length, 1, warnings.join('\n'));
  assert.match(warnings.find((msg) => msg.includes('leader Leases')) ?? '', /403.*get on leases in kube-system/);
  assert.equal(warnings.filter((msg) => msg.includes('heartbeat')).length, 1, warnings.join('\n'));

  const readiness = collector.readiness();
  assert.equal(readiness.ready, true);
  for (const what of [
    /API server metrics: \S+ HTTP 403/,
    /etcd metrics: \S+ ECONNREFUSED/,
    /leader Leases: HTTP 403.*kube-scheduler \(topogate needs get on leases/,
    /watch heartbeat: HTTP 403/,
  ])
    assert.match(readiness.reason ?? '', what);
  // Rounds every 100 ms: ~10 a second of 3 requests (metrics, two Leases), ~10 heartbeats of 1-2 (watch,
  // Lease). A hot loop would make thousands.
  assert.ok(requests <= 80 * seconds, `${requests} requests in ${seconds.toFixed(1)} s`);

  const status = collector.status();
  assert.equal(status.apiServer, undefined);
  assert.match(status.sources.apiServer?.error ?? '', /HTTP 403/);
  assert.match(status.sources.etcd?.error ?? '', /ECONNREFUSED/);
});
