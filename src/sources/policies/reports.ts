// Writes PolicyReports by server-side apply (shell): each namespace's report is replaced whole, under
// topogate's field manager. The kind is not topogate's own: when no CRD serves it, nothing is written
// and the error says so in a sentence, not as the API server's raw 404.

import { KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeObject } from '../../kube/types.ts';
import { POLICY_REPORT_API } from '../../policy/policyReport.ts';
import { describeKubeError, statusOf } from '../../kube-client/errors.ts';

/** No CRD serves wgpolicyk8s.io/v1alpha2 PolicyReport. */
export class PolicyReportsNotServed extends Error {
  constructor() {
    super(
      `the PolicyReport CRD (policyreports.wgpolicyk8s.io, ${POLICY_REPORT_API}) is not installed, so no ` +
        'PolicyReport was written: install it with the Helm chart (--set policyReports.installCRD=true) or ' +
        'kubectl apply -f manifests/policyreport/policyreports.yaml (in the topogate package)',
    );
    this.name = 'PolicyReportsNotServed';
  }
}

/** The object client, asked whether the kind is served (discovery, cached per client). */
class PolicyReportClient extends KubernetesObjectApi {
  async served(): Promise<boolean> {
    try {
      return (await this.resource(POLICY_REPORT_API, 'PolicyReport')) !== undefined;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw new Error(`asking whether ${POLICY_REPORT_API} PolicyReports are served: ${describeKubeError(error)}`, {
        cause: error,
      });
    }
  }
}

/** Applies every report; how many were written. Throws PolicyReportsNotServed before writing anything. */
export async function writePolicyReports(config: KubeConfig, reports: readonly KubeObject[]): Promise<number> {
  const client = config.makeApiClient(PolicyReportClient);
  if (!(await client.served())) throw new PolicyReportsNotServed();
  for (const report of reports) {
    try {
      await client.patch(
        report as KubernetesObject,
        undefined,
        undefined,
        'topogate',
        true,
        PatchStrategy.ServerSideApply,
      );
    } catch (error) {
      throw new Error(
        `writing PolicyReport ${report.metadata?.namespace}/${report.metadata?.name}: ${describeKubeError(error)}`,
        { cause: error },
      );
    }
  }
  return reports.length;
}
