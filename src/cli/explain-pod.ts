// `topogate explain pod/NAMESPACE/NAME`: a live Pod, taken back to what
// topogate first saw (by its decision record), decided again on the live
// model and policies; says what was decided then, what now, and why they
// differ. Any other input is the offline explain of mutate.ts.

import { CoreV1Api } from '@kubernetes/client-node';
import fastJsonPatch from 'fast-json-patch';
import type { Pod } from '../kube/types.ts';
import { podRequest } from '../kube/podFacts.ts';
import { podWorkload } from '../kube/workload-identity.ts';
import { compareDecisions, type Comparison } from '../policy/compareDecisions.ts';
import type { CompiledPolicySet } from '../policy/compiler.ts';
import { decide } from '../policy/engine.ts';
import { renderTrace, type DecisionTrace } from '../policy/explain.ts';
import { readRecord, type DecisionRecord } from '../policy/record.ts';
import { takeBack } from '../policy/takeBack.ts';
import type { Command } from './command.ts';
import { EXIT, parseFlags } from './command.ts';
import { plain, readLiveCluster } from './live.ts';
import { explain as offlineExplain } from './mutate.ts';

const POD_REFERENCE = /^pod\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/;

const usage = `Usage: topogate explain pod/NAMESPACE/NAME [--kubeconfig F] [--policies DIR] [--output json]
       topogate explain --policies DIR --topology PATH… FILE|-   (offline: see below)

pod/NAMESPACE/NAME: reads the live Pod, takes back what topogate added (by its
topogate.dev/decision record) and the node the scheduler chose, decides it
again on the live model and policies (the cluster's SchedulingPolicy objects,
and the files the running webhook serves, from its policies ConfigMap, or the
--policies files instead when given), and says what was decided then (policies,
generations, rule results, topology snapshot), what would be decided now, and
why they differ. Exit 0 when explained (the same or not), 2 on bad usage or
when the Pod cannot be read.

${offlineExplain.usage.replace(/^Usage: [^\n]*\n\n/, 'Offline: ')}`;

export const explain: Command = {
  summary: 'why a Pod is (or a live Pod was) placed as it is, policy by policy and rule by rule',
  usage,
  async run(args, io) {
    if (!args.some((arg) => arg.startsWith('pod/'))) return offlineExplain.run(args, io);
    const parsed = parseFlags('explain', usage, io, {
      args: [...args],
      allowPositionals: true,
      options: {
        kubeconfig: { type: 'string' },
        policies: { type: 'string', multiple: true, default: [] },
        output: { type: 'string', short: 'o', default: 'text' },
      },
    });
    if (parsed === undefined) return EXIT.usage;
    const reference = POD_REFERENCE.exec(parsed.positionals[0] ?? '');
    if (parsed.positionals.length !== 1 || reference === null) {
      io.stderr.write(`topogate explain: give one pod/NAMESPACE/NAME\n\n${usage}`);
      return EXIT.usage;
    }
    const [, namespace, , name] = reference as unknown as [string, string, string, string];
    let live: Pod;
    let cluster;
    try {
      cluster = await readLiveCluster({
        ...(parsed.values.kubeconfig !== undefined && { kubeconfig: parsed.values.kubeconfig }),
        policyPaths: parsed.values.policies,
        cwd: io.cwd,
      });
      const read = await cluster.config.makeApiClient(CoreV1Api).readNamespacedPod({ name, namespace });
      live = plain([read], 'v1', 'Pod')[0]!;
    } catch (error) {
      io.stderr.write(`topogate explain: ${(error as Error).message}\n`);
      return EXIT.usage;
    }
    for (const error of cluster.policyErrors) io.stderr.write(`Warning: invalid policy left out: ${error}\n`);
    io.stderr.write(`topogate explain: ${cluster.policySources}\n`);
    const again = decideAgain(live, namespace, cluster.compiled);
    if (parsed.values.output === 'json') {
      const { then, now, comparison, trace } = again;
      io.stdout.write(
        `${JSON.stringify({ pod: `${namespace}/${name}`, workload: trace.workload, then: then ?? null, now: now ?? null, ...comparison, trace }, null, 2)}\n`,
      );
    } else io.stdout.write(`${explainedText(live, `${namespace}/${name}`, again, cluster.compiled).join('\n')}\n`);
    return EXIT.ok;
  },
};

/** What topogate decided then (its record, the Pod taken back to before it), and what it decides now. */
interface DecidedAgain {
  readonly then: DecisionRecord | undefined;
  /** Why the record could not be read, if it could not. */
  readonly problem: string | undefined;
  readonly now: DecisionRecord | undefined;
  readonly trace: DecisionTrace;
  readonly comparison: Comparison;
}

function decideAgain(live: Pod, namespace: string, compiled: CompiledPolicySet): DecidedAgain {
  const { record: then, problem } = readRecord(live);
  const original = takeBack(live, then);
  const decision = decide(podRequest(original, namespace, podWorkload(live, namespace)), compiled, {
    now: Date.now(),
    maxSourceAgeMs: 10 * 60_000,
    explain: true,
  });
  const trace = decision.trace as DecisionTrace;
  const now =
    decision.patch.length > 0
      ? readRecord(
          fastJsonPatch.applyPatch(
            structuredClone(original),
            structuredClone(decision.patch) as fastJsonPatch.Operation[],
          ).newDocument,
        ).record
      : undefined;
  return { then, problem, now, trace, comparison: compareDecisions(then, now, trace) };
}

/** The text output: then, now, whether they differ and why, and today's trace. */
function explainedText(
  live: Pod,
  pod: string,
  { then, problem, now, trace, comparison }: DecidedAgain,
  compiled: CompiledPolicySet,
): string[] {
  const lines = [`Pod ${pod} (workload ${trace.workload})`];
  if (problem) lines.push(`  ${problem}`);
  const node = live.spec?.nodeName;
  const wrong = node === undefined ? undefined : compiled.snapshot.network?.mislabeled?.get(node);
  if (wrong)
    lines.push(
      `  node ${node} is mislabeled: its ${wrong.label} says ${wrong.value}, ` +
        `but it measures into the nodes labelled ${wrong.measured} (NetworkTopology status.mislabeled)`,
    );
  lines.push(`then: ${describe(then, 'no decision record: topogate did not change this Pod')}`);
  lines.push(`now:  ${describe(now, trace.skipped ?? 'no policy would change it', trace.snapshot)}`);
  lines.push(comparison.differs ? 'today’s decision differs:' : 'today’s decision is the same');
  for (const reason of comparison.reasons) lines.push(`  - ${reason}`);
  lines.push('', 'today’s decision, step by step:', renderTrace(trace, `Pod ${pod}`));
  return lines;
}

function describe(record: DecisionRecord | undefined, none: string, snapshot?: string): string {
  if (record === undefined) return snapshot ? `${none} (topology snapshot ${snapshot})` : none;
  const policies = record.policies.map((policy) => {
    const rules = Object.entries(policy.rules)
      .map(([rule, result]) => `${rule} ${result}`)
      .join(', ');
    return `${policy.name}${policy.generation !== undefined ? ` (generation ${policy.generation})` : ''}: ${rules}`;
  });
  return `topology snapshot ${record.snapshot}; applied ${policies.join('; ')}`;
}
