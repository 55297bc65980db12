// `topogate mutate` and `topogate explain`: the webhook's decision, offline,
// for a Pod, a workload's pod template, or an AdmissionReview's object.

import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import fastJsonPatch from 'fast-json-patch';
import { documentValue, parseKubectlYaml, stringifyForKubectl } from '../kube/yaml.ts';
import { isRecord } from '../kube/json.ts';
import { podRequest } from '../kube/podFacts.ts';
import type { KubeObject, Pod } from '../kube/types.ts';
import { objectWorkload } from '../kube/workload-identity.ts';
import { isWorkloadKind, templatePod, withTemplatePod } from '../kube/workloads.ts';
import { claimFacts, claimKindOf } from '../kube/claimFacts.ts';
import { decideClaim } from '../policy/claims.ts';
import { compile, type CompiledPolicySet } from '../policy/compiler.ts';
import { decide } from '../policy/engine.ts';
import { formatPolicyError } from '../policy/errors.ts';
import { renderTrace, type DecisionTrace } from '../policy/explain.ts';
import { loadPolicies } from '../sources/policies/files.ts';
import type { Decision, DecisionOptions } from '../policy/types.ts';
import { parseDuration } from '../server/duration.ts';
import { buildSnapshot } from '../topology/build.ts';
import { loadTopologyPaths } from '../sources/topology/files.ts';
import type { Command, CommandIO } from './command.ts';
import { EXIT } from './command.ts';

const DEFAULT_MAX_SOURCE_AGE = '10m';
const MAX_INPUT_BYTES = 8 * 1024 * 1024;

const flags = `Flags:
  --policies DIR      SchedulingPolicy files or directories (repeatable; required
                      unless --kubeconfig)
  --topology PATH…    topology objects: files or folders (repeatable, or several
                      paths before FILE; required unless --kubeconfig)
  --kubeconfig F      decide on the live cluster instead: its model and its
                      SchedulingPolicy objects, with the files the running webhook
                      serves (its policies ConfigMap) or the --policies files when
                      given, as the webhook would now; nothing is created or changed
  --output yaml|json  output format (default yaml)
  --now TIME          the decision's time, RFC 3339 (default: the clock)
  --max-source-age D  sources older than this degrade the rules that need them (default ${DEFAULT_MAX_SOURCE_AGE}; Go durations: 90s, 1m30s, 1h)

The input (FILE, or - for stdin) is a Pod, a workload with a pod template
(Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob), or an
AdmissionReview (or a bare AdmissionRequest) whose request.object is one of
those; several YAML documents or a kind: List are decided one by one.

The webhook mutates Pods, never workloads: a workload is admitted unchanged,
and each Pod its controller creates is decided on its own. For a workload,
mutate prints it with its pod template as the webhook will admit those Pods
(the same workload identity for rollout.percent; a DaemonSet's Pods get no
placement outputs), and says so on stderr.

Warnings go to stderr, one "Warning: …" line each. Exit 0 when admitted,
1 when denied (the reason on stderr), 2 on bad input or usage.
`;

const mutateUsage = `Usage: topogate mutate --policies DIR --topology PATH… [--patch] [--output json] FILE|-

Prints the object as the webhook would admit it (for a workload: with its
pod template mutated). --patch prints the JSON Patch instead (JSON, one
array per input; several inputs give an array of them).

${flags}`;

const explainUsage = `Usage: topogate explain --policies DIR --topology PATH… [--output json] FILE|-

Prints, policy by policy and rule by rule, whether it matched (or why not),
what it added or dropped and why, and how many schedulable nodes the
placement allows before and after each step.

${flags}`;

export const mutate: Command = {
  summary: 'offline dry-run: prints the object as the webhook would admit it',
  usage: mutateUsage,
  run: (args, io) => run('mutate', args, io),
};

export const explain: Command = {
  summary: 'shows, policy by policy and rule by rule, how a decision is made',
  usage: explainUsage,
  run: (args, io) => run('explain', args, io),
};

type Mode = 'mutate' | 'explain';

interface Parsed {
  readonly policies: string[];
  readonly topology: string[];
  readonly kubeconfig?: string;
  readonly input: string;
  readonly json: boolean;
  readonly patch: boolean;
  readonly options: DecisionOptions;
}

/** One decided input: the object to print and what was decided. */
interface Outcome {
  readonly object: KubeObject;
  /** Absent for an object passed through unchanged. */
  readonly decision?: Decision;
  /** What was decided: the Pod, or the workload whose template it is. */
  readonly subject: string;
}

class BadInput extends Error {}

async function run(mode: Mode, args: readonly string[], io: CommandIO): Promise<number> {
  const usage = mode === 'mutate' ? mutateUsage : explainUsage;
  let parsed: Parsed;
  try {
    parsed = parse(mode, args);
  } catch (error) {
    io.stderr.write(`topogate ${mode}: ${(error as Error).message}\n\n${usage}`);
    return EXIT.usage;
  }
  try {
    const compiled = await load(parsed, io);
    const inputs = inputsOf(await readInput(parsed.input, io));
    const outcomes = inputs.map((input) => {
      if (input.passThrough === undefined)
        return decideInput(input, compiled, { ...parsed.options, explain: mode === 'explain' });
      io.stderr.write(
        `topogate ${mode}: ${input.label}: ${input.passThrough}; ${mode === 'mutate' ? 'printed unchanged' : 'skipped'}\n`,
      );
      return { object: input.object, subject: input.label };
    });
    for (const { object, subject } of outcomes)
      if (mode === 'mutate' && object.kind !== 'Pod' && isWorkloadKind(object.kind))
        io.stderr.write(
          `Note: the webhook mutates Pods, not workloads: ${subject} is admitted unchanged, and its pod template above is what each of its Pods will be admitted as\n`,
        );
    for (const { decision } of outcomes)
      for (const warning of decision?.warnings ?? []) io.stderr.write(`Warning: ${warning}\n`);
    io.stdout.write(mode === 'explain' ? renderExplain(outcomes, parsed.json) : renderMutate(outcomes, parsed));
    const denials = outcomes.flatMap(({ decision }) => (decision && !decision.allowed ? [decision.message] : []));
    for (const message of denials) io.stderr.write(`Error: admission denied the request: ${message}\n`);
    return denials.length > 0 ? EXIT.failed : EXIT.ok;
  } catch (error) {
    if (!(error instanceof BadInput)) throw error;
    io.stderr.write(`topogate ${mode}: ${error.message}\n`);
    return EXIT.usage;
  }
}

function parse(mode: Mode, args: readonly string[]): Parsed {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      policies: { type: 'string', multiple: true },
      topology: { type: 'string', multiple: true },
      kubeconfig: { type: 'string' },
      output: { type: 'string', short: 'o', default: 'yaml' },
      patch: { type: 'boolean', default: false },
      now: { type: 'string' },
      'max-source-age': { type: 'string', default: DEFAULT_MAX_SOURCE_AGE },
    },
  });
  const live = values.kubeconfig !== undefined;
  if (!live && !values.policies?.length) throw new Error('--policies DIR is required (or --kubeconfig)');
  if (!live && !values.topology?.length) throw new Error('--topology PATH is required (or --kubeconfig)');
  if (live && values.topology?.length) throw new Error('--topology and --kubeconfig exclude each other');
  if (positionals.length === 0) throw new Error('give the input FILE, or - for stdin');
  if (values.output !== 'yaml' && values.output !== 'json')
    throw new Error(`--output must be yaml or json, not ${values.output}`);
  if (values.patch && mode === 'explain') throw new Error('--patch is a mutate flag');
  const now = values.now === undefined ? Date.now() : Date.parse(values.now);
  if (Number.isNaN(now)) throw new Error(`--now must be an RFC 3339 time, not ${values.now}`);
  return {
    policies: values.policies ?? [],
    ...(live && { kubeconfig: values.kubeconfig }),
    // `--topology a.yaml b/ pod.yaml`: the last positional is the input, the ones before it more topology paths.
    topology: [...(values.topology ?? []), ...positionals.slice(0, -1)],
    input: positionals[positionals.length - 1]!,
    json: values.output === 'json',
    patch: values.patch === true,
    options: { now, maxSourceAgeMs: maxSourceAge(values['max-source-age']!) },
  };
}

function maxSourceAge(text: string): number {
  const milliseconds = parseDuration(text);
  if (milliseconds === undefined)
    throw new Error(`--max-source-age must be a duration such as 90s, 10m or 1h, not ${text}`);
  return milliseconds;
}

async function load(parsed: Parsed, io: CommandIO): Promise<CompiledPolicySet> {
  if (parsed.kubeconfig !== undefined) return loadLive(parsed, io);
  const { policies, errors, files } = await loadPolicies(parsed.policies, { cwd: io.cwd });
  if (errors.length > 0) throw new BadInput(`invalid policies:\n${errors.map(formatPolicyError).join('\n')}`);
  if (files.length === 0) throw new BadInput(`no policy files (.yaml, .yml, .json) in ${parsed.policies.join(' ')}`);
  let objects: KubeObject[];
  try {
    objects = await loadTopologyPaths(parsed.topology.map((path) => resolve(io.cwd, path)));
  } catch (error) {
    throw new BadInput(`invalid topology: ${(error as Error).message}`);
  }
  return compile(policies, buildSnapshot(objects, { now: parsed.options.now }));
}

async function loadLive(parsed: Parsed, io: CommandIO): Promise<CompiledPolicySet> {
  const { readLiveCluster } = await import('./live.ts');
  try {
    const cluster = await readLiveCluster({
      kubeconfig: parsed.kubeconfig!,
      policyPaths: parsed.policies,
      cwd: io.cwd,
    });
    for (const error of cluster.policyErrors) io.stderr.write(`Warning: invalid policy left out: ${error}\n`);
    io.stderr.write(`topogate: ${cluster.policySources}\n`);
    return cluster.compiled;
  } catch (error) {
    throw new BadInput(`the cluster: ${(error as Error).message}`);
  }
}

async function readInput(path: string, io: CommandIO): Promise<string> {
  try {
    if (path !== '-') return await readFile(resolve(io.cwd, path), 'utf8');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of io.stdin) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += buffer.length;
      if (size > MAX_INPUT_BYTES) throw new Error(`stdin is larger than ${MAX_INPUT_BYTES} bytes`);
      chunks.push(buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BadInput(`${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

interface Input {
  readonly object: KubeObject;
  readonly namespace: string;
  readonly label: string;
  /** Why the object is not decided (among others that are, it is passed through). */
  readonly passThrough?: string;
}

/** The objects to decide, with the namespace each is created in. */
function inputsOf(text: string): Input[] {
  const inputs: Input[] = [];
  const documents = parseKubectlYaml(text);
  documents.forEach((document, index) => {
    const label = documents.length > 1 ? `document ${index + 1}` : 'the input';
    if (document.errors.length > 0)
      throw new BadInput(
        `${label} is not valid YAML or JSON: ${document.errors[0]!.message.split('\n')[0]!.replace(/:$/, '')}`,
      );
    const value = documentValue(document);
    if (value === null || value === undefined) return;
    for (const object of isRecord(value) && value.kind === 'List' && Array.isArray(value.items) ? value.items : [value])
      inputs.push(unwrap(object, label));
  });
  if (inputs.length === 0) throw new BadInput('the input holds no object');
  const undecidable = inputs.find((input) => input.passThrough !== undefined);
  if (undecidable && inputs.every((input) => input.passThrough !== undefined))
    throw new BadInput(`${undecidable.label}: ${undecidable.passThrough}`);
  return inputs;
}

function unwrap(value: unknown, label: string): Input {
  if (!isRecord(value)) throw new BadInput(`${label} is not an object`);
  const isReview = value.kind === 'AdmissionReview';
  const isBareRequest = value.kind === undefined && isRecord(value.object) && typeof value.operation === 'string';
  const request = isReview ? value.request : isBareRequest ? value : undefined;
  if (isReview && !isRecord(request)) throw new BadInput(`${label}: the AdmissionReview has no request`);
  const object = isRecord(request) ? request.object : value;
  if (!isRecord(object)) throw new BadInput(`${label}: the AdmissionReview's request.object is empty`);
  const fromRequest = isRecord(request) && typeof request.namespace === 'string' ? request.namespace : '';
  const fromObject =
    isRecord(object.metadata) && typeof object.metadata.namespace === 'string' ? object.metadata.namespace : '';
  const input = { object: object as KubeObject, namespace: fromRequest || fromObject || 'default', label };
  if (object.kind === 'Pod' || isWorkloadKind(object.kind) || claimKindOf(object as KubeObject) !== undefined)
    return input;
  return {
    ...input,
    passThrough: `kind ${JSON.stringify(object.kind)} is not a Pod or a workload with a pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob), nor a ResourceClaim or ResourceClaimTemplate`,
  };
}

function decideInput(input: Input, compiled: CompiledPolicySet, options: DecisionOptions): Outcome {
  const { object, namespace, label } = input;
  const kind = claimKindOf(object);
  if (kind !== undefined) {
    const decision = decideClaim(claimFacts(object, kind, namespace), compiled, { explain: options.explain === true });
    const subject = `${kind} ${namespace}/${object.metadata?.name ?? object.metadata?.generateName ?? ''}`;
    if (decision.patch.length === 0) return { object, decision, subject };
    const mutated = fastJsonPatch.applyPatch(
      structuredClone(object),
      structuredClone(decision.patch) as fastJsonPatch.Operation[],
      true,
      false,
    ).newDocument;
    return { object: mutated, decision, subject };
  }
  const pod: Pod | undefined = object.kind === 'Pod' ? object : templatePod(object);
  if (!pod) throw new BadInput(`${label}: the ${String(object.kind)} has no pod template`);
  const workload = object.kind === 'Pod' ? undefined : objectWorkload(object, namespace);
  const decision = decide(podRequest(pod, namespace, workload), compiled, options);
  const name = object.metadata?.name ?? object.metadata?.generateName ?? '';
  const subject =
    object.kind === 'Pod'
      ? `Pod ${namespace}/${name}`
      : `${String(object.kind)} ${namespace}/${name} (its pod template)`;
  if (decision.patch.length === 0) return { object, decision, subject };
  const mutated = fastJsonPatch.applyPatch(
    structuredClone(pod),
    structuredClone(decision.patch) as fastJsonPatch.Operation[],
    true,
    false,
  ).newDocument;
  return { object: object.kind === 'Pod' ? mutated : withTemplatePod(object, mutated), decision, subject };
}

function renderMutate(outcomes: readonly Outcome[], parsed: Parsed): string {
  const admitted = outcomes.filter(({ decision }) => decision?.allowed ?? true);
  if (parsed.patch) {
    const patches = admitted.map(({ decision }) => decision?.patch ?? []);
    return `${JSON.stringify(patches.length === 1 ? patches[0] : patches, null, 2)}\n`;
  }
  const objects = admitted.map(({ object }) => object);
  if (objects.length === 0) return '';
  if (parsed.json)
    return `${JSON.stringify(objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`;
  return objects.map((object) => stringifyForKubectl(object, { aliasDuplicateObjects: false })).join('---\n');
}

function renderExplain(outcomes: readonly Outcome[], json: boolean): string {
  const traces = outcomes.flatMap(({ decision, subject }) =>
    decision ? [{ subject, ...(decision.trace as DecisionTrace), patch: decision.patch }] : [],
  );
  if (json) return `${JSON.stringify(traces.length === 1 ? traces[0] : traces, null, 2)}\n`;
  return traces.map((trace) => renderTrace(trace, trace.subject)).join('\n');
}
