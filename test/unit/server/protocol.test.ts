import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { text } from 'node:stream/consumers';
import { after, before, test } from 'node:test';
import { connect } from 'node:tls';
import { Gauge } from 'prom-client';
import { parse } from 'yaml';
import type { Decision, PodRequest } from '../../../src/policy/types.ts';
import { metricValue, postJson, send, startTestServer, until, type Running } from './https.ts';

const fixtures = new URL('../../../../shared/fixtures/real-world/admission/', import.meta.url);

/** Every admission fixture as an AdmissionReview: the bare AdmissionRequests are wrapped (as v1). */
function reviews(): { name: string; review: Record<string, any> }[] {
  return readdirSync(fixtures).map((name) => {
    const text = readFileSync(new URL(name, fixtures), 'utf8');
    const value = name.endsWith('.json') ? JSON.parse(text) : parse(text);
    return {
      name,
      review:
        value.kind === 'AdmissionReview'
          ? value
          : { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: value },
    };
  });
}

const label = [{ op: 'add' as const, path: '/metadata/labels/topogate.dev~1seen', value: 'yes' }];
const seen: PodRequest[] = [];
let running: Running;
let ca: string;
let url: string;

before(async () => {
  running = await startTestServer({
    decide: (request): Decision => {
      seen.push(request);
      if (request.name === 'explode') throw new Error('engine bug');
      return {
        allowed: true,
        patch: label,
        warnings: ['w1'],
        auditAnnotations: { 'topogate.dev/policy': 'p' },
        applied: ['p'],
        matched: ['p'],
      };
    },
  });
  ca = running.certificates.caCert;
  url = running.server.url;
  assert.ok(
    seen.length > 0 && seen.every((request) => request.name === 'warm-up'),
    'the warm-up reviews, before serving, are decided',
  );
  seen.length = 0;
});
after(() => running.stop());

test('answers every real-world AdmissionReview in its own version, echoing the uid; only Pod CREATEs are decided', async () => {
  let decided = 0;
  for (const { name, review } of reviews()) {
    const reply = await postJson(url, ca, review, '?timeout=10s');
    if (!review.request.uid) {
      assert.equal(reply.status, 400, name);
      assert.match(reply.json().message, /request\.uid is missing/, name);
      continue;
    }
    assert.equal(reply.status, 200, `${name}: ${reply.text}`);
    assert.equal(reply.headers['content-type'], 'application/json');
    const answer = reply.json();
    assert.equal(answer.apiVersion, review.apiVersion, name);
    assert.equal(answer.kind, 'AdmissionReview', name);
    assert.equal(answer.response.uid, review.request.uid, name);
    assert.equal(answer.response.allowed, true, name);
    const { kind, operation, subResource } = review.request;
    const podCreate = kind?.group === '' && kind.kind === 'Pod' && operation === 'CREATE' && !subResource;
    if (podCreate) {
      decided++;
      assert.equal(answer.response.patchType, 'JSONPatch', name);
      const patch = JSON.parse(Buffer.from(answer.response.patch, 'base64').toString()) as {
        path: string;
        value: unknown;
      }[];
      assert.deepEqual(patch.slice(0, label.length), label, name);
      // A controller's Pod carries the warnings too: nobody reads the API server's answer to a controller.
      const owners = (review.request.object?.metadata?.ownerReferences ?? []) as { controller?: boolean }[];
      if (owners.some((owner) => owner.controller === true)) {
        assert.equal(patch.length, label.length + 1, name);
        assert.match(JSON.stringify(patch.at(-1)), /"\/metadata\/annotations.*topogate\.dev(\/|~1)warnings.*w1/, name);
      } else assert.equal(patch.length, label.length, name);
      assert.deepEqual(answer.response.warnings, ['w1']);
      assert.deepEqual(answer.response.auditAnnotations, { 'topogate.dev/policy': 'p' });
    } else {
      assert.deepEqual(Object.keys(answer.response).sort(), ['allowed', 'uid'], name);
    }
  }
  assert.equal(decided, 6, 'the six Pod CREATE fixtures');
  assert.equal(seen.length, decided);
  assert.ok(seen.every((request) => request.facts.namespace !== ''));
});

const podReview = (object: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    object,
    ...extra,
  },
});
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};

async function expectRefusal(
  reply: Promise<import('./https.ts').Reply>,
  status: number,
  message: RegExp,
): Promise<void> {
  const { status: got, json, text } = await reply;
  assert.equal(got, status, text);
  const body = json();
  assert.equal(body.kind, 'Status');
  assert.equal(body.code, status);
  assert.match(body.message, message);
}

test('400 for a body that is not JSON, saying so', async () => {
  await expectRefusal(
    send(url, '/mutate', ca, { method: 'POST', headers: { 'content-type': 'application/json' } }, '{"apiVersion":'),
    400,
    /^the body is not JSON: /,
  );
  await expectRefusal(
    send(
      url,
      '/mutate',
      ca,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      Buffer.from([0x7b, 0xff, 0x7d]),
    ),
    400,
    /not valid UTF-8/,
  );
  await expectRefusal(
    send(url, '/mutate', ca, { method: 'POST', headers: { 'content-type': 'application/json' } }, ''),
    400,
    /not JSON/,
  );
});

test('400 for JSON that is not an AdmissionReview, saying what is wrong', async () => {
  await expectRefusal(
    postJson(url, ca, pod),
    400,
    /apiVersion is "v1": expected one of admission\.k8s\.io\/v1, admission\.k8s\.io\/v1beta1/,
  );
  await expectRefusal(
    postJson(url, ca, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: {} }),
    400,
    /request is missing/,
  );
  await expectRefusal(
    postJson(url, ca, podReview('not a pod')),
    400,
    /request\.object must be the Pod being created, not a string/,
  );
});

test('415 for another content type', async () => {
  await expectRefusal(
    send(
      url,
      '/mutate',
      ca,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      JSON.stringify(podReview(pod)),
    ),
    415,
    /Content-Type must be application\/json, not "application\/x-www-form-urlencoded"/,
  );
  await expectRefusal(
    send(url, '/mutate', ca, { method: 'POST' }, JSON.stringify(podReview(pod))),
    415,
    /^Content-Type is missing: send application\/json$/,
  );
});

test('413 from the Content-Length alone, before the body is sent', async () => {
  // Only the headers go out; the answer comes without waiting for the 4 MiB announced.
  await expectRefusal(
    send(url, '/mutate', ca, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(4 * 1024 * 1024) },
      chunks: ['{'],
      pauseMs: 60_000,
    }),
    413,
    /the body is 4194304 bytes; the limit is 3145728 bytes/,
  );
});

test('413 for a chunked body that grows past the limit', async () => {
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  await expectRefusal(
    send(url, '/mutate', ca, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: Array(16).fill(chunk),
    }),
    413,
    /more than 3145728 bytes/,
  );
});

test('a "__proto__" key is refused and pollutes nothing; "constructor" is plain data', async () => {
  const body = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","kind":{"group":"","version":"v1","kind":"Pod"},"object":{"metadata":{"name":"p","labels":{"__proto__":{"polluted":"yes"}}}}}}`;
  await expectRefusal(
    send(url, '/mutate', ca, { method: 'POST', headers: { 'content-type': 'application/json' } }, body),
    400,
    /"__proto__" is not allowed \(at \/request\/object\/metadata\/labels\/__proto__\)/,
  );
  const reply = await postJson(
    url,
    ca,
    podReview({
      ...pod,
      metadata: {
        name: 'p',
        labels: { constructor: 'x' },
        annotations: JSON.parse('{"constructor":{"prototype":{"polluted":"yes"}}}'),
      },
    }),
  );
  assert.equal(reply.status, 200);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('deep nesting is refused with 400; a huge array gets a normal answer', async () => {
  const deep = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","object":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
  await expectRefusal(
    send(url, '/mutate', ca, { method: 'POST', headers: { 'content-type': 'application/json' } }, deep),
    400,
    /nests deeper than 128 levels/,
  );
  const huge = await postJson(
    url,
    ca,
    podReview({ ...pod, spec: { ...pod.spec, tolerations: Array(300_000).fill(0) } }),
  );
  assert.equal(huge.status, 200);
  assert.equal(huge.json().response.uid, 'u-1');
});

test('a decision that throws gets the safe answer (admitted unchanged, with a warning), counted as an error', async () => {
  const reply = await postJson(url, ca, podReview({ ...pod, metadata: { name: 'explode' } }));
  assert.equal(reply.status, 200);
  const { response } = reply.json();
  assert.equal(response.uid, 'u-1');
  assert.equal(response.allowed, true);
  assert.equal(response.patch, undefined);
  assert.deepEqual(response.warnings, ['topogate could not decide on this Pod and admitted it unchanged: engine bug']);
  assert.equal(await metricValue(running, 'topogate_admission_requests_total', { outcome: 'error' }), 1);
});

test('404 and 405 name the routes there are', async () => {
  await expectRefusal(send(url, '/nope', ca), 404, /no route for GET \/nope/);
  const reply = await send(url, '/mutate', ca);
  assert.equal(reply.status, 405);
  assert.equal(reply.headers.allow, 'POST');
});

test('POST /mutate spelled another way (percent-encoded, dot segments) reaches the same handler as the plain path', async () => {
  const before = seen.length;
  for (const path of ['/%6Dutate?timeout=10s', '/healthz/../mutate']) {
    const reply = await send(
      url,
      '/',
      ca,
      { path, method: 'POST', headers: { 'content-type': 'application/json' } },
      JSON.stringify(podReview(pod)),
    );
    assert.equal(reply.status, 200, `${path}: ${reply.text}`);
    assert.equal(reply.json().response.uid, 'u-1', path);
    assert.equal(reply.json().response.patchType, 'JSONPatch', path);
  }
  assert.equal(seen.length, before + 2, 'both decided');
});

test('an answer is JSON with its exact length in bytes', async () => {
  const reply = await postJson(url, ca, podReview(pod, { uid: 'ü-1 ✓' }));
  assert.equal(reply.status, 200);
  assert.equal(reply.headers['content-type'], 'application/json');
  assert.equal(reply.json().response.uid, 'ü-1 ✓');
  assert.equal(reply.headers['content-length'], String(Buffer.byteLength(reply.text)));
  assert.notEqual(reply.text.length, Buffer.byteLength(reply.text), 'the uid makes characters and bytes differ');
});

test('a request Node cannot parse gets 400 and the server goes on', async () => {
  const socket = connect({ host: '127.0.0.1', port: running.server.port, ca, servername: 'localhost' });
  socket.end('POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n');
  const reply = (await text(socket)).split('\r\n')[0];
  assert.equal(reply, 'HTTP/1.1 400 Bad Request');
});

/** What the server answers to `raw`, sent alone on a new connection. */
async function exchange(raw: string): Promise<{ head: string[]; body: string }> {
  const socket = connect({ host: '127.0.0.1', port: running.server.port, ca, servername: 'localhost' });
  socket.end(raw);
  const [head = '', body = ''] = (await text(socket)).split('\r\n\r\n');
  return { head: head.split('\r\n'), body };
}

test("Node's own refusals (no Host, a garbage request line) carry a Status that says why", async () => {
  for (const [raw, message] of [
    ['GET /healthz HTTP/1.1\r\n\r\n', /no Host header \(HTTP\/1\.1/],
    ['POST /mutate HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', /no Host header/],
    ['GET /healthz HTTP/1.0\r\n\r\n', /no Host header \(HTTP\/1\.0/],
    ['GARBAGE\r\n\r\n', /not valid HTTP\/1\.1/],
    ['\x00\x01\x02\r\n\r\n', /not valid HTTP\/1\.1/],
  ] as const) {
    const { head, body } = await exchange(raw);
    assert.equal(head[0], 'HTTP/1.1 400 Bad Request', JSON.stringify(raw));
    assert.ok(head.includes('Content-Type: application/json'), JSON.stringify(raw));
    const status = JSON.parse(body);
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 400);
    assert.match(status.message, message);
  }
  assert.equal((await send(url, '/healthz', ca)).status, 200);
});

test('a client that goes away mid-body costs nothing: no 500, and the server goes on', async () => {
  const before = await metricValue(running, 'topogate_rejected_requests_total', { code: '400' });
  const socket = connect({ host: '127.0.0.1', port: running.server.port, ca, servername: 'localhost' });
  await once(socket, 'secureConnect');
  socket.write(
    'POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":',
  );
  await until(
    async () => (await metricValue(running, 'topogate_in_flight_requests')) === 1,
    'the request to be in flight',
  );
  socket.destroy();
  await until(
    async () => (await metricValue(running, 'topogate_rejected_requests_total', { code: '400' })) === before + 1,
    'the abandoned request to be counted as a 400',
  );
  assert.equal(
    await metricValue(running, 'topogate_admission_requests_total', { outcome: 'error' }),
    1,
    'only the engine bug above',
  );
  assert.equal((await send(url, '/healthz', ca)).status, 200);
});

test('an error anywhere in a route is a 500 with its message, and the server goes on', async () => {
  new Gauge({
    name: 'test_broken',
    help: 'a collector that throws',
    registers: [running.registry],
    collect() {
      throw new Error('collector broke');
    },
  });
  await expectRefusal(send(url, '/metrics', ca), 500, /^internal error: collector broke$/);
  running.registry.removeSingleMetric('test_broken');
});

test('once serving, a request claiming to be the warm-up is an ordinary request, decided and counted', async () => {
  const before = seen.length;
  const counted = await metricValue(running, 'topogate_admission_requests_total');
  const reply = await send(
    url,
    '/mutate',
    ca,
    { method: 'POST', headers: { 'content-type': 'application/json', 'x-topogate-warm-up': 'guess' } },
    JSON.stringify(podReview(pod)),
  );
  assert.equal(reply.status, 200);
  assert.equal(seen.length, before + 1);
  assert.equal(await metricValue(running, 'topogate_admission_requests_total'), counted + 1);
});

test('healthy after all of the above, with metrics that counted it', async () => {
  const health = await send(url, '/healthz', ca);
  assert.equal(health.status, 200);
  assert.equal(health.text, 'ok\n');
  const metrics = await send(url, '/metrics', ca);
  assert.equal(metrics.status, 200);
  assert.match(metrics.headers['content-type'] ?? '', /^text\/plain/);
  for (const name of [
    'topogate_admission_requests_total',
    'topogate_admission_duration_seconds_bucket{le="0.0001"',
    'topogate_rejected_requests_total{code="413"}',
    'topogate_policy_applied_total{policy="p",enforcement="Enforce"}',
  ]) {
    assert.ok(metrics.text.includes(name), name);
  }
});
