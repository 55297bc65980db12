import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { snapshot } from '../../../src/cli/snapshot.ts';

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk) => (text += chunk));
  const code = await snapshot.run(args, {
    stdout: new PassThrough(),
    stderr,
    stdin: new PassThrough(),
    cwd: process.cwd(),
  });
  return { code, stderr: text };
}

describe('topogate snapshot (without a cluster)', () => {
  it('refuses bad flags with the usage, exit 2', async () => {
    const bad = await run(['--timeout', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--timeout must be a positive number of seconds, not "soon"/);
    assert.match(bad.stderr, /Usage: topogate snapshot/);
    assert.equal((await run(['--watch'])).code, 2);
  });

  it('says what is wrong with the kubeconfig, exit 1', async () => {
    const missing = await run(['--kubeconfig', '/nonexistent/kubeconfig']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^topogate snapshot: ENOENT: no such file or directory/);
  });
});
