// PolicyReports: the CRD topogate ships (optional) agrees with the working group's own v1alpha2 definition
// (the real-world fixture) and accepts what topogate writes; without a CRD, nothing is written and the
// error is a sentence, said once by serve's background audit, not every interval.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { loopbackKubeConfig } from '../loopback-kubeconfig.ts';
import { parse } from 'yaml';
import { policyReports } from '../../../../src/policy/policyReport.ts';
import { PolicyReportsNotServed, writePolicyReports } from '../../../../src/sources/policies/reports.ts';
import { startPolicyWriter } from '../../../../src/sources/policies/writer.ts';
import { buildSnapshot } from '../../../../src/topology/build.ts';

const root = new URL('../../../../', import.meta.url);
const upstream = parse(
  readFileSync(
    new URL(
      '../shared/fixtures/real-world/policyreport/wg-policy-prototypes.crd-v1alpha2.wgpolicyk8s.io_policyreports.yaml',
      root,
    ),
    'utf8',
  ),
);
const ours = parse(readFileSync(new URL('manifests/policyreport/policyreports.yaml', root), 'utf8'));
const v1alpha2 = (crd: any) => crd.spec.versions.find((version: any) => version.name === 'v1alpha2');

/** Every schema node as `path: type [format] [enum] [required]`: what an API server checks. */
function shape(schema: any, path = ''): string[] {
  const facts = [schema.type, schema.format, schema.enum?.join('/'), schema.required?.toSorted().join(',')];
  const lines = [`${path || '.'}: ${facts.filter(Boolean).join(' ')}`];
  for (const [key, child] of Object.entries(schema.properties ?? {})) lines.push(...shape(child, `${path}.${key}`));
  if (schema.items) lines.push(...shape(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object') lines.push(...shape(schema.additionalProperties, `${path}{}`));
  return lines.sort();
}

test('the shipped PolicyReport CRD is the working group’s v1alpha2: names, scope, fields, types, enums', () => {
  assert.equal(ours.metadata.name, upstream.metadata.name);
  assert.equal(ours.spec.group, upstream.spec.group);
  assert.equal(ours.spec.scope, upstream.spec.scope);
  assert.deepEqual(ours.spec.names, upstream.spec.names);
  assert.deepEqual(shape(v1alpha2(ours).schema.openAPIV3Schema), shape(v1alpha2(upstream).schema.openAPIV3Schema));
  assert.deepEqual(
    v1alpha2(ours).additionalPrinterColumns.map((column: any) => [column.name, column.jsonPath]),
    v1alpha2(upstream).additionalPrinterColumns.map((column: any) => [column.name, column.jsonPath]),
  );
  assert.equal(v1alpha2(ours).served && v1alpha2(ours).storage, true);
  assert.equal(ours.spec.versions.length, 1);
});

/** The structural checks of an API server: types, required fields, enums, no unknown fields. */
function problems(value: any, schema: any, path = ''): string[] {
  const type = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (schema.type && schema.type !== type && !(schema.type === 'number' && type === 'integer'))
    return [`${path}: ${type}, not ${schema.type}`];
  if (schema.enum && !schema.enum.includes(value)) return [`${path}: ${value} not in ${schema.enum}`];
  if (type === 'array')
    return value.flatMap((item: any, index: number) => problems(item, schema.items, `${path}[${index}]`));
  if (type !== 'object' || path === '.metadata') return [];
  const missing = (schema.required ?? [])
    .filter((key: string) => !(key in value))
    .map((key: string) => `${path}.${key}: missing`);
  return [
    ...missing,
    ...Object.entries(value).flatMap(([key, child]) => {
      const childSchema = schema.properties?.[key] ?? schema.additionalProperties;
      return childSchema ? problems(child, childSchema, `${path}.${key}`) : [`${path}.${key}: unknown field`];
    }),
  ];
}

test('what topogate writes fits the shipped CRD', () => {
  const reports = policyReports(
    [
      {
        pod: { namespace: 'web', name: 'a', uid: 'u1' },
        policy: 'p',
        enforcement: 'Audit',
        result: 'warn',
        message: 'would add',
      },
      {
        pod: { namespace: 'web', name: 'b' },
        policy: 'q',
        enforcement: 'Enforce',
        result: 'fail',
        message: 'none fits',
      },
    ] as any,
    1_700_000_000_000,
    ['gone'],
  );
  assert.equal(reports.length, 2);
  for (const report of reports) assert.deepEqual(problems(report, v1alpha2(ours).schema.openAPIV3Schema), []);
});

async function fakeApiServer(served: boolean) {
  const seen: string[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    for await (const _ of request);
    seen.push(`${request.method} ${request.url}`);
    if (request.url === '/apis/wgpolicyk8s.io/v1alpha2' && !served) {
      response.writeHead(404, { 'content-type': 'application/json' });
      return response.end(
        '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}',
      );
    }
    const body =
      request.url === '/apis/wgpolicyk8s.io/v1alpha2'
        ? {
            kind: 'APIResourceList',
            groupVersion: 'wgpolicyk8s.io/v1alpha2',
            resources: [
              {
                name: 'policyreports',
                kind: 'PolicyReport',
                namespaced: true,
                singularName: 'policyreport',
                verbs: ['patch'],
              },
            ],
          }
        : {};
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = loopbackKubeConfig(server);
  return { config, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const report = policyReports(
  [{ pod: { namespace: 'web', name: 'a' }, policy: 'p', enforcement: 'Audit', result: 'warn', message: 'm' }] as any,
  0,
);

test('without the CRD nothing is written, and the error says what to install, not the raw 404', async () => {
  const api = await fakeApiServer(false);
  try {
    const error = await writePolicyReports(api.config, report).then(
      () => assert.fail('written'),
      (failure: Error) => failure,
    );
    assert.ok(error instanceof PolicyReportsNotServed);
    assert.match(
      error.message,
      /PolicyReport CRD \(policyreports\.wgpolicyk8s\.io, wgpolicyk8s\.io\/v1alpha2\) is not installed/,
    );
    assert.match(error.message, /policyReports\.installCRD=true/);
    assert.doesNotMatch(error.message, /Headers|HTTP-Code|\n/);
    assert.deepEqual(api.seen, ['GET /apis/wgpolicyk8s.io/v1alpha2']);
  } finally {
    await api.close();
  }
});

test('with the CRD each report is applied server-side, and the count is answered', async () => {
  const api = await fakeApiServer(true);
  try {
    assert.equal(await writePolicyReports(api.config, report), 1);
    assert.equal(
      api.seen.filter((line) =>
        line.startsWith('PATCH /apis/wgpolicyk8s.io/v1alpha2/namespaces/web/policyreports/topogate'),
      ).length,
      1,
    );
  } finally {
    await api.close();
  }
});

async function backgroundAudit(writeReports: () => Promise<number>, intervals: number): Promise<string[]> {
  const api = await fakeApiServer(true);
  const out = new PassThrough();
  const lines: string[] = [];
  out.on('data', (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).msg as string),
    ),
  );
  let audits = 0;
  const writer = startPolicyWriter({
    config: api.config,
    objects: () => [],
    files: () => [],
    policies: () => [],
    snapshot: () => buildSnapshot([], { now: 0 }),
    subscribe: () => () => {},
    elect: (callbacks) => {
      setImmediate(() => callbacks.onStartedLeading());
      return { isLeader: () => true, stop: async () => {} };
    },
    auditIntervalMs: 20,
    maxSourceAgeMs: 60_000,
    list: {
      pods: async () => [],
      workloads: async () => [],
      writeReports: () => {
        audits++;
        return writeReports();
      },
    },
    log: pino({ level: 'info' }, out),
  });
  for (let waited = 0; audits < intervals && waited < 10_000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  await writer.stop();
  await api.close();
  return lines.filter((line) => line.startsWith('background audit'));
}

test('serve’s background audit says a missing CRD once, and never that it wrote what it did not', async () => {
  const missing = await backgroundAudit(async () => Promise.reject(new PolicyReportsNotServed()), 3);
  assert.equal(missing.length, 1, missing.join('\n'));
  assert.match(
    missing[0]!,
    /^background audit: the PolicyReport CRD .* is not installed, so no PolicyReport was written/,
  );
  const nothing = await backgroundAudit(async () => 0, 2);
  assert.ok(nothing.length >= 2);
  for (const line of nothing)
    assert.equal(line, 'background audit: no Pod matched a policy, so no PolicyReport was written');
});
