import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { nameProblem } from '../../../src/certs/issue.ts';
import { certs } from '../../../src/cli/certs.ts';

async function run(args: string[], cwd: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (chunk) => out.push(String(chunk)));
  stderr.on('data', (chunk) => err.push(String(chunk)));
  const code = await certs.run(args, { stdout, stderr, stdin: new PassThrough(), cwd });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

test('writes a CA and a serving certificate for the Service names, the key readable by its owner only', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-certs-'));
  try {
    const result = await run(['--service', 'topogate', '--namespace', 'infra', '--out', 'out', '--localhost'], dir);
    assert.equal(result.code, 0, result.stderr);
    const out = join(dir, 'out');
    const ca = new X509Certificate(await readFile(join(out, 'ca.crt')));
    const serving = new X509Certificate(await readFile(join(out, 'tls.crt')));
    assert.ok(ca.ca);
    assert.ok(!serving.ca);
    assert.ok(serving.checkIssued(ca));
    assert.ok(serving.verify(ca.publicKey));
    assert.equal(serving.subjectAltName, 'DNS:topogate, DNS:topogate.infra, DNS:topogate.infra.svc, DNS:topogate.infra.svc.cluster.local, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    for (const host of ['topogate.infra.svc', 'localhost']) assert.equal(serving.checkHost(host), host);
    assert.equal(serving.checkIP('127.0.0.1'), '127.0.0.1');
    const key = createPrivateKey(await readFile(join(out, 'tls.key')));
    assert.equal(key.asymmetricKeyType, 'rsa');
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    assert.ok(serving.checkPrivateKey(key));
    assert.equal((await stat(join(out, 'tls.key'))).mode & 0o777, 0o600);
    assert.match(result.stdout, /^wrote ca\.crt, tls\.crt, tls\.key to /);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('without --localhost the certificate names only the Service', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-certs-'));
  try {
    assert.equal((await run(['--service', 'hook', '--namespace', 'ns', '--days', '30'], dir)).code, 0);
    const serving = new X509Certificate(await readFile(join(dir, 'tls.crt')));
    assert.equal(serving.subjectAltName, 'DNS:hook, DNS:hook.ns, DNS:hook.ns.svc, DNS:hook.ns.svc.cluster.local');
    assert.equal(serving.checkHost('localhost'), undefined);
    const days = (Date.parse(serving.validTo) - Date.parse(serving.validFrom)) / 86_400_000;
    assert.ok(days > 30 && days < 30.01, String(days));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('refuses missing or invalid names with a usage error', async () => {
  const cwd = tmpdir();
  assert.deepEqual(await run(['--namespace', 'ns'], cwd).then(({ code, stderr }) => [code, stderr.split('\n')[0]]), [2, 'topogate certs: --service is required']);
  assert.equal((await run(['--service', 'Hook_1', '--namespace', 'ns'], cwd)).code, 2);
  assert.equal((await run(['--service', 'hook', '--namespace', 'ns', '--days', '0'], cwd)).code, 2);
  assert.equal((await run(['--service', 'hook', '--namespace', 'ns', '--bogus'], cwd)).code, 2);
  assert.equal(nameProblem('--service', 'a'.repeat(64))?.startsWith('--service "'), true);
  assert.equal(nameProblem('--service', 'ok-name'), undefined);
});
