// What Kueue spent admitting the gangs, from its own /metrics: the time of
// its admission attempts (its scheduler's cycles) and the mean wait from a
// Workload's creation to its admission. Pure.

import { metricSamples } from '../../test/e2e/harness/kube.ts';

export interface KueueAdmission {
  /** Admission attempts, successful or not, and the seconds they took (kueue_admission_attempt_duration_seconds). */
  readonly attempts: number;
  readonly attemptSeconds: number;
  /** Workloads admitted, and their mean wait from creation (kueue_admission_wait_time_seconds). */
  readonly admitted: number;
  readonly meanWaitSeconds: number | null;
}

const sum = (text: string, name: string) => metricSamples(text, name).reduce((total, s) => total + s.value, 0);

export function kueueAdmission(metrics: string): KueueAdmission {
  const admitted = sum(metrics, 'kueue_admission_wait_time_seconds_count');
  return {
    attempts: sum(metrics, 'kueue_admission_attempt_duration_seconds_count'),
    attemptSeconds: sum(metrics, 'kueue_admission_attempt_duration_seconds_sum'),
    admitted,
    meanWaitSeconds: admitted === 0 ? null : sum(metrics, 'kueue_admission_wait_time_seconds_sum') / admitted,
  };
}
