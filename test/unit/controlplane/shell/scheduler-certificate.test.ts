// The scheduler's secure port with a certificate the kubeconfig's CA did not
// sign (kubeadm's kube-scheduler makes itself one at start): refused with a
// message that says what to do, and read with --scheduler-insecure-skip-tls-verify.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { issueCertificates } from '../../../../src/certs/issue.ts';
import { parseServeArgs } from '../../../../src/cli/serve/args.ts';
import { ControlPlaneCollector } from '../../../../src/controlplane/shell/collector.ts';
import { buildSnapshot } from '../../../../src/topology/build.ts';

const excerpt = readFileSync(
  new URL(
    '../../../../../shared/fixtures/real-world/controlplane/datadog.kube-scheduler-1.29.scheduler_scheduling_attempt_duration_seconds.excerpt.prom',
    import.meta.url,
  ),
  'utf8',
);

let scheduler: Server;
const authorizations: (string | undefined)[] = [];

before(async () => {
  // A CA of its own, which no kubeconfig below names.
  const own = issueCertificates({ service: 'kube-scheduler', namespace: 'kube-system', localhost: true });
  scheduler = createServer({ cert: own.tlsCert, key: own.tlsKey }, (request, response) => {
    authorizations.push(request.headers.authorization);
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`scheduler_pending_pods{queue="active"} 0\n${excerpt}`);
  });
  await new Promise<void>((resolve) => scheduler.listen(0, '127.0.0.1', resolve));
});

after(() => new Promise<void>((resolve) => scheduler.close(() => resolve())));

function collector(skipTlsVerify: boolean): ControlPlaneCollector {
  const config = new KubeConfig();
  config.loadFromOptions({
    // Nothing listens on port 9 of loopback: the API server's own sources fail at once, and are not the point.
    clusters: [{ name: 'c', server: 'https://127.0.0.1:9' }],
    users: [{ name: 'u', token: 'topogate-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const { port } = scheduler.address() as AddressInfo;
  return new ControlPlaneCollector({
    config,
    topology: () => buildSnapshot([], { now: 0 }),
    etcdMetrics: [],
    schedulerMetrics: `https://127.0.0.1:${port}/metrics`,
    schedulerSkipTlsVerify: skipTlsVerify,
    webhookName: 'pods.topogate.dev',
    namespace: 'topogate-system',
    identity: 'unit',
    timing: { intervalMs: 60_000, timeoutMs: 2_000, windowMs: 60_000, heartbeatMs: 60_000 },
    log: pino({ level: 'silent' }),
  });
}

test('verified against the kubeconfig, a certificate from another CA is refused, and the message says what to do', async () => {
  const before = authorizations.length;
  const refusing = collector(false);
  await refusing.round();
  const error = refusing.status().sources.scheduler?.error ?? '';
  assert.match(error, /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  assert.match(error, /--tls-cert-file\), or --scheduler-insecure-skip-tls-verify/);
  assert.match(refusing.readiness().reason ?? '', /scheduler metrics: .*UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  assert.equal(authorizations.length, before, 'no request reached the scheduler');
});

test('with the flag the page is read, with topogate’s credentials', async () => {
  const reading = collector(true);
  await reading.round();
  const source = reading.status().sources.scheduler;
  assert.equal(source?.error, undefined);
  assert.ok(source?.observedAt, 'the scheduler source answered');
  assert.equal(authorizations.at(-1), 'Bearer topogate-token');
});

test('serve takes the flag only with --scheduler-metrics, and it is off by default', () => {
  const parse = (...args: string[]) => parseServeArgs(['--topology', 'kube', ...args], '/', {});
  const url = ['--scheduler-metrics', 'https://10.0.0.5:10259/metrics'];
  const off = parse(...url);
  assert.ok(off.ok);
  assert.equal(off.config.schedulerSkipTlsVerify, false);
  const on = parse(...url, '--scheduler-insecure-skip-tls-verify');
  assert.ok(on.ok);
  assert.equal(on.config.schedulerSkipTlsVerify, true);
  const alone = parse('--scheduler-insecure-skip-tls-verify');
  assert.deepEqual(alone, { ok: false, message: '--scheduler-insecure-skip-tls-verify needs --scheduler-metrics' });
});
