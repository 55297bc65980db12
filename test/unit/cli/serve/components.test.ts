// serve's background components: started after the sources and before the
// webhook listens, named in /readyz, stopped after the webhook closes in
// reverse order; one failing to start stops those started before it.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { parseServeArgs, startTopogate } from '../../../../src/cli/serve.ts';
import type { ServeComponent } from '../../../../src/cli/serve/component.ts';
import { send } from '../../server/https.ts';

function recording(name: string, events: string[], ready = true): ServeComponent {
  return {
    name,
    async start(context) {
      events.push(`start ${name} (${context.policies.current().policies.length} policies)`);
      return {
        readiness: () => (ready ? { ready: true } : { ready: false, reason: `${name} is warming up` }),
        stop: async () => void events.push(`stop ${name}`),
      };
    },
  };
}

test('components start in order with the policies loaded, show in /readyz, and stop in reverse', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-components-'));
  const events: string[] = [];
  const skipped: ServeComponent = { name: 'skipped', start: async () => undefined };
  try {
    const parsed = parseServeArgs(['--port', '0', '--cert-dir', dir], process.cwd(), {});
    assert.ok(parsed.ok);
    const running = await startTopogate(parsed.config, { log: pino({ level: 'silent' }), registry: new Registry() }, [
      recording('audit', events),
      skipped,
      recording('collector', events, false),
    ]);
    const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
    const ready = await send(running.url, '/readyz', ca, { headers: { accept: 'application/json' } });
    await running.stop();
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.json().checks.collector, { ready: false, reason: 'collector is warming up' });
    assert.deepEqual(ready.json().checks.audit, { ready: true });
    assert.equal(ready.json().checks.skipped, undefined);
    const demoPolicies = Number(/\((\d+) policies\)/.exec(events[0] ?? '')?.[1]);
    assert.ok(demoPolicies > 0, events[0]);
    assert.deepEqual(events, [
      `start audit (${demoPolicies} policies)`,
      `start collector (${demoPolicies} policies)`,
      'stop collector',
      'stop audit',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a component that fails to start stops those started before it, and start-up rejects with its error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-components-'));
  const events: string[] = [];
  const failing: ServeComponent = {
    name: 'broken',
    start: async () => {
      throw new Error('no lease');
    },
  };
  try {
    const parsed = parseServeArgs(['--port', '0', '--cert-dir', dir], process.cwd(), {});
    assert.ok(parsed.ok);
    await assert.rejects(
      startTopogate(parsed.config, { log: pino({ level: 'silent' }), registry: new Registry() }, [
        recording('audit', events),
        failing,
      ]),
      { message: 'no lease' },
    );
    assert.deepEqual(events.slice(1), ['stop audit']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
