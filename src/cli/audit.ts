// `topogate audit`: every Pod of a live cluster (as topogate first saw it) and
// every workload's pod template, decided against the policies and the live
// model. Prints per policy what it matches, would change and cannot satisfy;
// writes nothing unless --write-reports asks for PolicyReports.

import { auditCluster, type AuditReport, type Tally } from '../policy/audit.ts';
import { policyReports } from '../policy/policyReport.ts';
import { parseDuration } from '../server/duration.ts';
import type { Command } from './command.ts';
import { EXIT, parseFlags } from './command.ts';
import { listPods, listWorkloads, readLiveCluster } from './live.ts';
import { writePolicyReports } from '../sources/policies/reports.ts';

const usage = `Usage: topogate audit [--kubeconfig F] [--policies DIR] [--output table|json] [--write-reports]

Decides every existing Pod of the cluster (taking back what topogate added,
by its topogate.dev/decision record, and the node the scheduler chose) and
every workload's pod template against the policies and the live model, and
prints per policy: Pods matched, Pods that would change, Pods whose placement
would be unsatisfiable, the first few of each, and the same for workloads.
Nothing in the cluster is changed.

Flags:
  --kubeconfig F        the cluster (default: KUBECONFIG, ~/.kube/config, in-cluster)
  --policies DIR        policy files or folders, beside the cluster's SchedulingPolicy
                        objects (repeatable; default: the files the running webhook
                        serves, from its policies ConfigMap)
  --output table|json   default table; json: {"policies": [{"name", "matched",
                        "wouldChange", "unsatisfiable", "examples": {...}, ...}]}
  --write-reports       also write the results as wgpolicyk8s.io/v1alpha2
                        PolicyReports, one per namespace (named topogate); needs
                        their CRD (the chart's policyReports.installCRD, or
                        manifests/policyreport/ in the package)
  --max-source-age D    sources older than this degrade the rules that need them (default 10m)

Exit 0 when the audit ran, 1 when the cluster could not be read or the reports
not written, 2 on bad usage.
`;

export const audit: Command = {
  summary: 'decides the live cluster’s Pods against the policies and says what each policy does',
  usage,
  async run(args, io) {
    const parsed = parseFlags('audit', usage, io, {
      args: [...args],
      options: {
        kubeconfig: { type: 'string' },
        policies: { type: 'string', multiple: true, default: [] },
        output: { type: 'string', short: 'o', default: 'table' },
        'write-reports': { type: 'boolean', default: false },
        'max-source-age': { type: 'string', default: '10m' },
      },
    });
    if (parsed === undefined) return EXIT.usage;
    const { values } = parsed;
    const maxSourceAgeMs = parseDuration(values['max-source-age']);
    if ((values.output !== 'table' && values.output !== 'json') || maxSourceAgeMs === undefined) {
      io.stderr.write(`topogate audit: --output must be table or json, --max-source-age a duration\n\n${usage}`);
      return EXIT.usage;
    }
    try {
      const cluster = await readLiveCluster({
        ...(values.kubeconfig !== undefined && { kubeconfig: values.kubeconfig }),
        policyPaths: values.policies,
        cwd: io.cwd,
      });
      for (const error of cluster.policyErrors) io.stderr.write(`Warning: invalid policy left out: ${error}\n`);
      io.stderr.write(`topogate audit: ${cluster.policySources}\n`);
      const [pods, workloads] = await Promise.all([listPods(cluster.config), listWorkloads(cluster.config)]);
      const now = Date.now();
      const report = auditCluster(pods, workloads, cluster.compiled, { now, maxSourceAgeMs });
      io.stdout.write(
        values.output === 'json' ? `${JSON.stringify({ policies: report.policies }, null, 2)}\n` : table(report),
      );
      if (values['write-reports']) {
        const written = await writePolicyReports(cluster.config, policyReports(report.results, now));
        io.stderr.write(`wrote ${written} PolicyReports\n`);
      }
      return EXIT.ok;
    } catch (error) {
      io.stderr.write(`topogate audit: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
  },
};

function table(report: AuditReport): string {
  const header = ['POLICY', 'ENFORCEMENT', 'MATCHED', 'WOULD-CHANGE', 'UNSATISFIABLE', 'WORKLOADS(M/C/U)'];
  const rows = report.policies.map((policy) => [
    policy.name,
    policy.enforcement,
    String(policy.matched),
    String(policy.wouldChange),
    String(policy.unsatisfiable),
    `${policy.workloads.matched}/${policy.workloads.wouldChange}/${policy.workloads.unsatisfiable}`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const lines = [line(header), ...rows.map(line)];
  for (const policy of report.policies) {
    const examples = describeExamples(policy, 'Pods') + describeExamples(policy.workloads, 'workloads');
    if (examples) lines.push('', `${policy.name}:`, examples.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

function describeExamples(tally: Tally, what: string): string {
  const kinds = [
    ['matched', tally.examples.matched, tally.matched],
    ['would change', tally.examples.wouldChange, tally.wouldChange],
    ['unsatisfiable', tally.examples.unsatisfiable, tally.unsatisfiable],
  ] as const;
  return kinds
    .filter(([, names]) => names.length > 0)
    .map(
      ([label, names, total]) =>
        `  ${what} ${label}: ${names.join(', ')}${total > names.length ? `, … (${total})` : ''}\n`,
    )
    .join('');
}
