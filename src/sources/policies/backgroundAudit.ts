// The background audit (serve --audit-interval): the cluster's Pods and workloads judged against the policies in
// force, written as PolicyReports per namespace; a namespace whose results are all gone gets an empty report.

import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeKubeError } from '../../kube-client/errors.ts';
import { auditCluster } from '../../policy/audit.ts';
import { compile } from '../../policy/compiler.ts';
import { policyReports } from '../../policy/policyReport.ts';
import { PolicyReportsNotServed } from './reports.ts';
import type { KubeObject, Pod } from '../../kube/types.ts';
import type { SchedulingPolicy } from '../../policy/types.ts';
import type { TopologySnapshot } from '../../topology/model.ts';

export interface BackgroundAuditOptions {
  readonly config: KubeConfig;
  readonly policies: () => readonly SchedulingPolicy[];
  readonly snapshot: () => TopologySnapshot;
  readonly maxSourceAgeMs: number;
  readonly list: {
    pods(config: KubeConfig): Promise<Pod[]>;
    workloads(config: KubeConfig): Promise<KubeObject[]>;
    writeReports(config: KubeConfig, reports: readonly KubeObject[]): Promise<number>;
  };
  readonly log: Logger;
}

export class BackgroundAudit {
  readonly #options: BackgroundAuditOptions;
  /** The namespaces the last audit wrote reports in. */
  #reported = new Set<string>();
  #notServedSaid = false;

  constructor(options: BackgroundAuditOptions) {
    this.#options = options;
  }

  async run(): Promise<void> {
    const { config, log } = this.#options;
    try {
      const started = Date.now();
      const written = await this.#audit(config, started);
      this.#notServedSaid = false;
      log.info(
        { ...written.counts, ms: Date.now() - started },
        written.reports > 0
          ? `background audit: ${written.reports} PolicyReports written`
          : 'background audit: no Pod matched a policy, so no PolicyReport was written',
      );
    } catch (error) {
      if (!(error instanceof PolicyReportsNotServed))
        return log.warn(`background audit failed: ${describeKubeError(error)}`);
      // Said once, not every interval: installing the CRD is the operator's choice.
      if (!this.#notServedSaid) log.warn(`background audit: ${error.message}; trying again every interval`);
      this.#notServedSaid = true;
    }
  }

  async #audit(config: KubeConfig, started: number) {
    const { list, maxSourceAgeMs } = this.#options;
    const [pods, workloads] = await Promise.all([list.pods(config), list.workloads(config)]);
    const compiled = compile(this.#options.policies(), this.#options.snapshot());
    const report = auditCluster(pods, workloads, compiled, { now: started, maxSourceAgeMs });
    const namespaces = new Set(report.results.map((result) => result.pod.namespace));
    // A namespace whose results are all gone gets an empty report rather than a stale one.
    const cleared = [...this.#reported].filter((namespace) => !namespaces.has(namespace));
    const reports = await list.writeReports(config, policyReports(report.results, started, cleared));
    this.#reported = namespaces;
    return { reports, counts: { pods: pods.length, workloads: workloads.length, namespaces: namespaces.size } };
  }
}
