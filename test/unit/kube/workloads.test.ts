import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isWorkloadKind, templatePod, withTemplatePod } from '../../../src/kube/workloads.ts';

test('every workload kind exposes its template as a Pod', () => {
  const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c' }] } };
  for (const kind of ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']) {
    assert.deepEqual(templatePod({ kind, spec: { template } }), { apiVersion: 'v1', kind: 'Pod', ...template });
  }
  assert.deepEqual(
    templatePod({ kind: 'CronJob', spec: { jobTemplate: { spec: { template } } } })?.spec,
    template.spec,
  );
  assert.equal(templatePod({ kind: 'Deployment', spec: {} }), undefined);
  assert.equal(isWorkloadKind('Pod'), false);
});

test('the mutated Pod goes back into the template, leaving the rest and the input alone', () => {
  const cronJob = {
    kind: 'CronJob',
    spec: { schedule: '* * * * *', jobTemplate: { spec: { backoffLimit: 1, template: { spec: { containers: [] } } } } },
  };
  const updated = withTemplatePod(cronJob, { metadata: { annotations: { a: 'b' } }, spec: { schedulerName: 's' } });
  assert.deepEqual(updated, {
    kind: 'CronJob',
    spec: {
      schedule: '* * * * *',
      jobTemplate: {
        spec: { backoffLimit: 1, template: { metadata: { annotations: { a: 'b' } }, spec: { schedulerName: 's' } } },
      },
    },
  });
  assert.deepEqual(cronJob.spec.jobTemplate.spec.template, { spec: { containers: [] } });
});
