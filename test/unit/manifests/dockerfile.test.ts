// Docker cannot run here, so the Dockerfile is checked by reading it: the
// pinned Node, production dependencies only, a non-root user the Deployment
// agrees with, and a build context that holds what the image copies and no more.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { manifestsDir, readManifests } from '../../../src/cli/manifests.ts';

const root = new URL('../../../', import.meta.url);
const dockerfile = await readFile(new URL('Dockerfile', root), 'utf8');
const dockerignore = await readFile(new URL('.dockerignore', root), 'utf8');
const packageJson = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as {
  optionalDependencies: Record<string, string>;
};
const deployment = (await readManifests(manifestsDir)).find((object) => object.kind === 'Deployment') as Record<
  string,
  any
>;

/** Instructions with their arguments, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'))
  .map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });

const all = (keyword: string) =>
  instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);

test('the image runs the Node version package.json pins, on a base given as a build argument, built in stages', () => {
  const pinned = packageJson.optionalDependencies['node'];
  assert.ok(pinned);
  const args = all('ARG');
  assert.ok(args.includes(`NODE_VERSION=${pinned}`), `ARG NODE_VERSION=${pinned}`);
  assert.ok(
    args.some((arg) => /^BASE=(docker\.io\/library\/)?node:\$\{NODE_VERSION\}-[a-z]+-slim$/.test(arg)),
    'the default base is the public Node image of that version',
  );
  assert.ok(args.includes('BUILD_BASE=${BASE}'));
  assert.deepEqual(all('FROM'), ['${BUILD_BASE} AS dependencies', '${BASE}']);
});

/** A RUN's command in exec form (the local base has no shell), after its --flags. */
const execForm = (run: string) => JSON.parse(run.replace(/^(--\S+\s+)*/, '')) as string[];

test('only the locked production dependencies are installed, without the optional pinned Node', () => {
  const installs = all('RUN')
    .map(execForm)
    .filter((command) => command[0] === 'npm');
  assert.equal(installs.length, 1);
  const [install] = installs;
  assert.equal(install![1], 'ci');
  for (const flag of ['--omit=dev', '--omit=optional', '--ignore-scripts']) assert.ok(install!.includes(flag), flag);
});

test('runs as the numeric non-root user the Deployment asks for', () => {
  const users = all('USER');
  assert.equal(users.length, 1);
  const [uid, gid] = users[0]!.split(':').map(Number);
  const context = deployment.spec.template.spec.securityContext;
  assert.ok(uid !== undefined && uid > 0);
  assert.equal(uid, context.runAsUser);
  assert.equal(gid, context.runAsGroup);
});

test('starts `node bin/topogate.ts serve`, and exposes the port the Deployment serves on', () => {
  const command = [...JSON.parse(all('ENTRYPOINT')[0]!), ...JSON.parse(all('CMD')[0]!)];
  assert.deepEqual(command, ['node', 'bin/topogate.ts', 'serve']);
  const container = deployment.spec.template.spec.containers[0];
  assert.equal(container.args[0], 'serve', 'the Deployment replaces CMD only');
  assert.deepEqual(all('EXPOSE'), [String(container.ports[0].containerPort)]);
});

test('.dockerignore admits exactly what the Dockerfile copies from the context', () => {
  const patterns = dockerignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  assert.equal(patterns[0], '*', 'an allowlist');
  const admitted = patterns
    .slice(1)
    .map((pattern) => pattern.replace(/^!/, ''))
    .sort();
  const copied = all('COPY')
    .filter((args) => !args.startsWith('--from'))
    .flatMap((args) => args.split(/\s+/).slice(0, -1));
  assert.deepEqual(admitted, [...new Set(copied)].sort());
});

test('the image, the Deployment, the chart and the npm launcher all run with two malloc arenas', async () => {
  assert.ok(all('ENV').includes('MALLOC_ARENA_MAX=2'), 'ENV MALLOC_ARENA_MAX=2');
  const env = deployment.spec.template.spec.containers[0].env as { name: string; value: string }[];
  assert.deepEqual(
    env.filter((variable) => variable.name === 'MALLOC_ARENA_MAX'),
    [{ name: 'MALLOC_ARENA_MAX', value: '2' }],
  );
  const chartDeployment = await readFile(new URL('charts/topogate/templates/deployment.yaml', root), 'utf8');
  assert.match(chartDeployment, /^ {12}- \{ name: MALLOC_ARENA_MAX, value: "2" \}$/m);
  const launcher = await readFile(new URL('bin/topogate.cjs', root), 'utf8');
  assert.match(launcher, /const env = \{ MALLOC_ARENA_MAX: '2', \.\.\.process\.env \};/);
});

test('the image holds what `serve` with no flags reads outside a cluster: the policies and the demo cluster', () => {
  const copied = all('COPY')
    .filter((args) => !args.startsWith('--from'))
    .map((args) => args.split(/\s+/)[0]);
  for (const needed of ['policies', 'examples']) assert.ok(copied.includes(needed), `COPY ${needed}`);
});
