import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { PolicyVersion } from '../../../../src/ports/policies.ts';
import { createPolicyStore, type PolicyStore } from '../../../../src/sources/policies/store.ts';
import { policy } from '../../policy/loader-cases.ts';

const log = pino({ level: 'silent' });
const spread = 'rules: {spread: [{topologyKey: zone}]}';
let root: string;
let count = 0;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'topogate-store-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freshDir(files: Record<string, string>): Promise<string> {
  const dir = join(root, `case-${count++}`);
  await mkdir(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** Waits (bounded, so a broken watcher fails instead of hanging) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (check()) return;
    await sleep(20);
  }
  assert.fail(`gave up waiting until ${what}`);
}

/** The next set the store publishes; fails (rather than hangs) when none comes. */
function nextChange(store: PolicyStore): Promise<PolicyVersion> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no new policy set was published')), 10_000);
    const stop = store.onChange((set) => {
      stop();
      clearTimeout(timer);
      resolve(set);
    });
  });
}

async function metric(registry: Registry, name: string): Promise<number | undefined> {
  return (await registry.getSingleMetric(name)?.get())?.values[0]?.value;
}

async function open(dir: string) {
  const registry = new Registry();
  const store = await createPolicyStore({ dir, log, registry, debounceMs: 30 });
  return { store, registry };
}

test('loads the directory and follows changes; a bad file keeps the last good set until it is fixed', async () => {
  const dir = await freshDir({ 'a.yaml': policy(spread, 'a') });
  const { store, registry } = await open(dir);
  try {
    assert.deepEqual(store.readiness(), { ready: true });
    assert.equal(store.current().version, 1);
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['a'],
    );
    assert.equal(await metric(registry, 'topogate_policies_loaded'), 1);
    assert.ok(((await metric(registry, 'topogate_policy_last_reload_success_timestamp_seconds')) ?? 0) > 0);

    await writeFile(join(dir, 'b.yaml'), policy('rules: {numa: {maxCandidates: 0}}', 'b'));
    await until(() => store.readiness().reason !== undefined, 'the bad file is noticed');
    assert.deepEqual(store.readiness(), {
      ready: true,
      reason: `last reload failed: ${join(dir, 'b.yaml')}:5:33: spec.rules.numa.maxCandidates: must be at least 1, got 0; serving policy set version 1`,
    });
    assert.equal(store.current().version, 1);
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['a'],
    );
    assert.equal(await metric(registry, 'topogate_policy_reload_errors_total'), 1);
    assert.equal(await metric(registry, 'topogate_policy_last_reload_successful'), 0);

    const changed = nextChange(store);
    await writeFile(join(dir, 'b.yaml'), policy('rules: {numa: {maxCandidates: 4}}', 'b'));
    const set = await changed;
    assert.equal(set.version, 2);
    assert.deepEqual(
      set.policies.map((p) => p.name),
      ['a', 'b'],
    );
    assert.deepEqual(store.current(), set);
    assert.deepEqual(store.readiness(), { ready: true });
    assert.equal(await metric(registry, 'topogate_policies_loaded'), 2);
    assert.equal(await metric(registry, 'topogate_policy_last_reload_successful'), 1);
  } finally {
    await store.stop();
  }
});

test('a bad first load is not ready, and a fix makes it ready', async () => {
  const dir = await freshDir({
    'a.yaml': 'apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: a}\nspec: {rules: {}}\n',
  });
  const { store } = await open(dir);
  try {
    assert.deepEqual(store.readiness(), {
      ready: false,
      reason: `policies not loaded: ${join(dir, 'a.yaml')}:4:15: spec.rules: needs at least one rule: nodeLabels, gpu, numa, latency, bandwidth, pack, colocate, spread or dra`,
    });
    assert.deepEqual(store.current(), { version: 0, policies: [] });
    const changed = nextChange(store);
    await writeFile(join(dir, 'a.yaml'), policy(spread, 'a'));
    assert.equal((await changed).version, 1);
    assert.deepEqual(store.readiness(), { ready: true });
  } finally {
    await store.stop();
  }
});

test('an editor replacing a file by rename is seen', async () => {
  const dir = await freshDir({ 'a.yaml': policy(spread, 'a') });
  const { store } = await open(dir);
  try {
    const changed = nextChange(store);
    await writeFile(join(dir, '.a.yaml.swp'), policy(spread, 'renamed'));
    await rename(join(dir, '.a.yaml.swp'), join(dir, 'a.yaml'));
    assert.deepEqual(
      (await changed).policies.map((p) => p.name),
      ['renamed'],
    );
  } finally {
    await store.stop();
  }
});

test('an unchanged set keeps its version; a missing directory is not ready', async () => {
  const dir = await freshDir({ 'a.yaml': policy(spread, 'a') });
  const { store } = await open(dir);
  try {
    await writeFile(join(dir, 'notes.md'), 'not a policy');
    await store.reload();
    assert.equal(store.current().version, 1);
  } finally {
    await store.stop();
  }
  const missing = await open(join(root, 'nowhere'));
  try {
    assert.deepEqual(missing.store.readiness(), {
      ready: false,
      reason: `policies not loaded: ${join(root, 'nowhere')}: cannot read: no such file or directory`,
    });
  } finally {
    await missing.store.stop();
  }
});

test('a removed directory keeps the last good set; when it comes back it is followed again', async () => {
  const dir = await freshDir({ 'a.yaml': policy(spread, 'a') });
  const store = await createPolicyStore({ dir, log, registry: new Registry(), debounceMs: 30, retryMs: 50 });
  try {
    await rm(dir, { recursive: true });
    await until(() => store.readiness().reason !== undefined, 'the removal is noticed');
    assert.equal(
      store.readiness().reason,
      `last reload failed: ${dir}: cannot read: no such file or directory; serving policy set version 1`,
    );
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['a'],
    );
    const changed = nextChange(store);
    await mkdir(dir);
    await writeFile(join(dir, 'b.yaml'), policy(spread, 'b'));
    assert.deepEqual(
      (await changed).policies.map((p) => p.name),
      ['b'],
    );
    assert.deepEqual(store.readiness(), { ready: true });
  } finally {
    await store.stop();
  }
});

test('a file that becomes empty keeps its last policies until it is deleted or valid again', async () => {
  const dir = await freshDir({ 'a.yaml': policy(spread, 'kept'), 'b.yaml': policy(spread, 'other') });
  const { store, registry } = await open(dir);
  try {
    assert.deepEqual(
      store
        .current()
        .policies.map((p) => p.name)
        .sort(),
      ['kept', 'other'],
    );
    // A slow rewrite: truncated first, written later.
    await writeFile(join(dir, 'a.yaml'), '');
    await store.reload();
    assert.deepEqual(
      store
        .current()
        .policies.map((p) => p.name)
        .sort(),
      ['kept', 'other'],
    );
    assert.equal(await metric(registry, 'topogate_policy_files_held_empty'), 1);
    assert.deepEqual(store.readiness(), {
      ready: true,
      reason: `policies held from files caught mid-rewrite (emptied: ${join(dir, 'a.yaml')}); delete a file or make it whole to end this`,
    });

    await writeFile(join(dir, 'a.yaml'), policy(spread, 'rewritten'));
    await store.reload();
    assert.deepEqual(
      store
        .current()
        .policies.map((p) => p.name)
        .sort(),
      ['other', 'rewritten'],
    );
    assert.equal(await metric(registry, 'topogate_policy_files_held_empty'), 0);

    await writeFile(join(dir, 'a.yaml'), '# nothing but a comment\n');
    await store.reload();
    assert.deepEqual(
      store
        .current()
        .policies.map((p) => p.name)
        .sort(),
      ['other', 'rewritten'],
    );
    await rm(join(dir, 'a.yaml'));
    await store.reload();
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['other'],
    );
  } finally {
    await store.stop();
  }
});

test('an empty file at start holds nothing; a policy moved out of an emptied file is not held twice', async () => {
  const dir = await freshDir({ 'a.yaml': '', 'b.yaml': policy(spread, 'moved') });
  const { store } = await open(dir);
  try {
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['moved'],
    );
    assert.equal(store.current().version, 1);
    await writeFile(join(dir, 'c.yaml'), policy(spread, 'moved'));
    await writeFile(join(dir, 'b.yaml'), '');
    await store.reload();
    assert.deepEqual(
      store.current().policies.map((p) => p.name),
      ['moved'],
    );
    assert.equal(store.current().policies[0]?.source?.file, join(dir, 'c.yaml'));
  } finally {
    await store.stop();
  }
});

test('a file cut at a "---" keeps the policies it lost, and /readyz says so until it is whole', async () => {
  const both = `${policy(spread, 'first')}---\n${policy(spread, 'second')}`;
  const dir = await freshDir({ 'a.yaml': both });
  const { store, registry } = await open(dir);
  const names = () =>
    store
      .current()
      .policies.map((p) => p.name)
      .sort();
  try {
    assert.deepEqual(names(), ['first', 'second']);
    await writeFile(join(dir, 'a.yaml'), `${policy(spread, 'first')}---\n`);
    await store.reload();
    assert.deepEqual(names(), ['first', 'second']);
    assert.equal(await metric(registry, 'topogate_policy_files_held_empty'), 1);
    assert.deepEqual(store.readiness(), {
      ready: true,
      reason: `policies held from files caught mid-rewrite (cut at a "---": ${join(dir, 'a.yaml')}); delete a file or make it whole to end this`,
    });

    // Whole again, one policy removed on purpose: it goes, and so does the reason.
    await writeFile(join(dir, 'a.yaml'), policy(spread, 'first'));
    await store.reload();
    assert.deepEqual(names(), ['first']);
    assert.deepEqual(store.readiness(), { ready: true });
  } finally {
    await store.stop();
  }
});
