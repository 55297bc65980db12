// `topogate test`: policy test suites, like `kyverno test`. Each suite file
// names policies and topology files and lists cases: a Pod or workload and
// the outcome expected of the webhook. Every case is decided by the engine
// the webhook runs, and each difference from the expectation is reported.

import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fastJsonPatch from 'fast-json-patch';
import { podPlacementNodes } from '../topology/nodeSelector.ts';
import { podFacts, podRequest } from '../kube/podFacts.ts';
import { toleratedNodes } from '../topology/tolerations.ts';
import type { KubeObject, Pod } from '../kube/types.ts';
import { objectWorkload } from '../kube/workload-identity.ts';
import { isWorkloadKind, templatePod } from '../kube/workloads.ts';
import { compile, type CompiledPolicySet } from '../policy/compiler.ts';
import { claimFacts, claimKindOf } from '../kube/claimFacts.ts';
import { decideClaim } from '../policy/claims.ts';
import { decide } from '../policy/engine.ts';
import { formatPolicyError } from '../policy/errors.ts';
import { loadPolicies } from '../sources/policies/files.ts';
import { checkDocument } from '../policy/schema/check.ts';
import type { Issue } from '../api/schema/issue.ts';
import { locatedErrors, readYamlDocuments } from '../policy/schema/located.ts';
import { testSuite, type Expectation, type TestCase, type TestSuite } from '../policy/schema/test-suite.ts';
import type { Decision } from '../policy/types.ts';
import { buildSnapshot } from '../topology/build.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import { loadTopologyPaths, parseObjects } from '../sources/topology/files.ts';
import type { Command } from './command.ts';
import { EXIT } from './command.ts';
import { pathArguments } from './lint.ts';

const SUITE_FILE = /^topogate-test\.ya?ml$/;

const usage = `Usage: topogate test DIR|FILE…

Runs the policy test suites: every topogate-test.yaml (or .yml) under each
DIR, recursively, or the suite FILEs given. A suite:

  apiVersion: topogate.dev/v1alpha1
  kind: PolicyTest
  metadata: {name: gpu-training}
  policies: [../../gpu-training.yaml]     # files or folders, relative to the suite
  topology: [../../../examples/cluster]   # files or folders of Kubernetes objects
  cases:
    - name: a training Pod gets an 80 GB GPU
      pod: pods/trainer.yaml    # a file with one Pod, workload or claim, or the object inline
      namespace: ml-training    # default: the object's namespace, else "default"
      expect:
        allowed: true                      # default true
        applied: [gpu-training]            # exactly these policies, in order
        audited: [gpu-audit]               # exactly these Audit policies would change it
        nodes: [gpu-h100-1a-1]             # exactly the schedulable nodes left
        fields: {/spec/schedulerName: x}   # JSON pointer into the mutated Pod: value (null: absent)
        warnings: ["not Guaranteed"]       # substrings of warnings ([]: no warning)
        message: "no schedulable node"     # substring of the denial message

Prints PASS or FAIL per case, with what differs. Exit 0 when every case
passes, 1 when any fails or a suite cannot be read, 2 on bad usage.
`;

export const test: Command = {
  summary: 'runs policy test suites (a Pod, a topology, the expected outcome)',
  usage,
  async run(args, io) {
    const paths = pathArguments('test', args, io, usage);
    if (paths === undefined) return EXIT.usage;
    const tally = { passed: 0, failed: 0 };
    let suites = 0;
    for (const path of paths) {
      let files: string[];
      try {
        files = await suiteFiles(resolve(io.cwd, path));
      } catch (error) {
        io.stdout.write(`FAIL ${path}: ${readError(error)}\n`);
        tally.failed++;
        continue;
      }
      if (files.length === 0) {
        io.stdout.write(`FAIL ${path}: no topogate-test.yaml found\n`);
        tally.failed++;
      }
      for (const file of files) {
        suites++;
        for (const line of await runSuite(file, io.cwd, tally)) io.stdout.write(`${line}\n`);
      }
    }
    io.stdout.write(
      `\n${tally.passed} passed, ${tally.failed} failed (${suites} ${suites === 1 ? 'suite' : 'suites'})\n`,
    );
    return tally.failed === 0 ? EXIT.ok : EXIT.failed;
  },
};

async function suiteFiles(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const files: string[] = [];
  for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await suiteFiles(child)));
    else if (SUITE_FILE.test(entry.name)) files.push(child);
  }
  return files;
}

/** The report lines of one suite; counts its cases into `tally`. */
async function runSuite(file: string, cwd: string, tally: { passed: number; failed: number }): Promise<string[]> {
  const name = shown(file, cwd);
  let prepared: { suite: TestSuite; compiled: CompiledPolicySet; now: number };
  try {
    prepared = await prepare(file, cwd);
  } catch (error) {
    tally.failed++;
    return [`FAIL ${name}: ${(error as Error).message}`];
  }
  const { suite, compiled, now } = prepared;
  const lines: string[] = [];
  for (const testCase of suite.cases) {
    const label = `${suite.metadata.name} › ${testCase.name}`;
    let differences: string[];
    try {
      differences = await runCase(testCase, dirname(file), compiled, now);
    } catch (error) {
      differences = [(error as Error).message];
    }
    if (differences.length === 0) {
      tally.passed++;
      lines.push(`PASS ${label}`);
    } else {
      tally.failed++;
      lines.push(
        `FAIL ${label}  (${name})`,
        ...differences.map((difference) => `     - ${difference.replaceAll('\n', '\n       ')}`),
      );
    }
  }
  return lines;
}

async function prepare(
  file: string,
  cwd: string,
): Promise<{ suite: TestSuite; compiled: CompiledPolicySet; now: number }> {
  const { documents, errors } = readYamlDocuments(
    await readFile(file, 'utf8').catch((error) => Promise.reject(new Error(readError(error)))),
    shown(file, cwd),
  );
  const [document, extra] = documents;
  if (errors.length > 0) throw new Error(`invalid suite:\n${errors.map(formatPolicyError).join('\n')}`);
  if (document === undefined || extra !== undefined)
    throw new Error('a suite file holds exactly one PolicyTest document');
  const issues: Issue[] = [];
  const suite = checkDocument(testSuite, document.value, issues);
  if (suite === undefined)
    throw new Error(`invalid suite:\n${locatedErrors(issues, document.locate).map(formatPolicyError).join('\n')}`);

  return { suite, compiled: await compileSuite(suite, dirname(file), cwd), now: Date.now() };
}

async function compileSuite(suite: TestSuite, base: string, cwd: string): Promise<CompiledPolicySet> {
  const { policies, errors, files } = await loadPolicies(
    suite.policies.map((path) => shown(resolve(base, path), cwd)),
    { cwd },
  );
  const problems = errors.map(formatPolicyError);
  if (files.length === 0 && errors.length === 0) problems.push(`no policy files in ${suite.policies.join(', ')}`);
  if (problems.length > 0) throw new Error(`invalid policies:\n${problems.join('\n')}`);
  let snapshot: TopologySnapshot;
  try {
    snapshot = buildSnapshot(await loadTopologyPaths(suite.topology.map((path) => resolve(base, path))), {
      now: Date.now(),
    });
  } catch (error) {
    throw new Error(`invalid topology: ${(error as Error).message}`, { cause: error });
  }
  return compile(policies, snapshot);
}

/** What differs from the expectation (empty: the case passes). */
async function runCase(testCase: TestCase, base: string, compiled: CompiledPolicySet, now: number): Promise<string[]> {
  const object =
    typeof testCase.pod === 'string' ? await objectFromFile(resolve(base, testCase.pod)) : (testCase.pod as KubeObject);
  const claim = claimKindOf(object);
  if (claim !== undefined) {
    const namespace = testCase.namespace ?? object.metadata?.namespace ?? 'default';
    return differences(testCase.expect, decideClaim(claimFacts(object, claim, namespace), compiled), object);
  }
  const pod = object.kind === 'Pod' ? object : isWorkloadKind(object.kind) ? templatePod(object) : undefined;
  if (pod === undefined)
    throw new Error(`pod: kind ${JSON.stringify(object.kind)} is not a Pod or a workload with a pod template`);
  const namespace = testCase.namespace ?? object.metadata?.namespace ?? 'default';
  // A fixed topology from files never goes stale.
  // A workload's template is decided as its Pods are: with the workload's identity (rollout, DaemonSets).
  const workload = object.kind === 'Pod' ? undefined : objectWorkload(object, namespace);
  const decision = decide(podRequest(pod, namespace, workload), compiled, {
    now,
    maxSourceAgeMs: Number.POSITIVE_INFINITY,
  });
  return differences(testCase.expect, decision, pod, compiled.snapshot);
}

async function objectFromFile(file: string): Promise<KubeObject> {
  const objects = parseObjects(
    await readFile(file, 'utf8').catch((error) => Promise.reject(new Error(`pod: ${file}: ${readError(error)}`))),
    file,
  );
  const [object] = objects;
  if (object === undefined || objects.length > 1)
    throw new Error(`pod: ${file} must hold exactly one object, not ${objects.length}`);
  return object;
}

/**
 * What differs between the expectation and the decision on `object` (a Pod, or a claim), whose `fields` are read
 * from the object as the decision's patch leaves it. A claim has no nodes: `snapshot` is given for Pods only.
 */
function differences(
  expect: Expectation,
  decision: Decision,
  object: KubeObject,
  snapshot?: TopologySnapshot,
): string[] {
  const mutated =
    decision.patch.length === 0
      ? object
      : (fastJsonPatch.applyPatch(
          structuredClone(object),
          structuredClone(decision.patch) as fastJsonPatch.Operation[],
          false,
          false,
        ).newDocument as KubeObject);
  const found: string[] = [];
  if (decision.allowed !== expect.allowed) {
    found.push(
      `allowed: expected ${expect.allowed}, got ${decision.allowed}${decision.message ? ` (${decision.message})` : ''}`,
    );
  }
  if (expect.message !== undefined && !(decision.message ?? '').includes(expect.message)) {
    found.push(
      `message: expected to contain ${JSON.stringify(expect.message)}, got ${JSON.stringify(decision.message ?? '')}`,
    );
  }
  if (expect.applied !== undefined && !isDeepStrictEqual(expect.applied, decision.applied)) {
    found.push(`applied: expected ${show(expect.applied)}, got ${show(decision.applied)}`);
  }
  const audited = (decision.audited ?? []).filter((outcome) => outcome.wouldChange).map((outcome) => outcome.policy);
  if (expect.audited !== undefined && !isDeepStrictEqual(expect.audited, audited)) {
    found.push(`audited: expected ${show(expect.audited)}, got ${show(audited)}`);
  }
  if (expect.nodes !== undefined && snapshot === undefined)
    found.push(`nodes: a ${String(object.kind)} is not placed on nodes; expect fields of it instead`);
  else if (expect.nodes !== undefined && snapshot !== undefined)
    found.push(...nodeDifferences(expect.nodes, allowedNodes(mutated as Pod, snapshot)));
  for (const [pointer, expected] of Object.entries(expect.fields ?? {})) {
    const got = valueAt(mutated, pointer);
    const same = expected === null ? got === undefined || got === null : isDeepStrictEqual(got, expected);
    if (!same) found.push(`${pointer}: expected ${show(expected)}, got ${got === undefined ? '(absent)' : show(got)}`);
  }
  if (expect.warnings !== undefined) found.push(...warningDifferences(expect.warnings, decision.warnings));
  return found;
}

/** The nodes expected and not allowed, and those allowed and not expected, as one difference. */
function nodeDifferences(expected: readonly string[], got: readonly string[]): string[] {
  const missing = expected.filter((node) => !got.includes(node));
  const unexpected = got.filter((node) => !expected.includes(node));
  if (missing.length + unexpected.length === 0) return [];
  const lines = [`nodes differ:`, `  expected:   ${show([...expected].sort())}`, `  got:        ${show(got)}`];
  if (missing.length > 0) lines.push(`  missing:    ${missing.join(', ')}`);
  if (unexpected.length > 0) lines.push(`  unexpected: ${unexpected.join(', ')}`);
  return [lines.join('\n')];
}

/** Each expected warning is a part of some warning; none expected means none said. */
function warningDifferences(expected: readonly string[], warnings: readonly string[]): string[] {
  const found: string[] = [];
  if (expected.length === 0 && warnings.length > 0) found.push(`warnings: expected none, got ${show(warnings)}`);
  for (const wanted of expected) {
    if (!warnings.some((warning) => warning.includes(wanted)))
      found.push(`warnings: none contains ${JSON.stringify(wanted)}; got ${show(warnings)}`);
  }
  return found;
}

/** The schedulable nodes (not cordoned, Ready, taints tolerated) that the Pod's node selector and required affinity allow. */
function allowedNodes(pod: Pod, snapshot: TopologySnapshot): string[] {
  const { nodes } = snapshot;
  const { placement } = podFacts(pod, '');
  const allowed = nodes
    .schedulable()
    .and(toleratedNodes(nodes, placement.tolerations))
    .and(podPlacementNodes(nodes, placement));
  return [...allowed.slots()].map((slot) => nodes.bySlot(slot)?.name ?? `#${slot}`).sort();
}

/** RFC 6901: `/spec/containers/0/name`, with ~1 for / and ~0 for ~ in keys. */
function valueAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const show = (value: unknown) => JSON.stringify(value);

/** A path as people read it: relative to the working directory when inside it. */
function shown(file: string, cwd: string): string {
  const path = relative(cwd, file);
  return path === '' || path.startsWith('..') || isAbsolute(path) ? file : path;
}

function readError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file or directory' : (error as Error).message;
}
