// The policy set of a cluster: the directory's policies plus the valid
// SchedulingPolicy objects (pure). An object that stops being valid keeps its
// last good version in force; names are unique across both, the file's wins.

import type { KubeObject } from '../kube/types.ts';
import type { PolicyError } from './errors.ts';
import { policyFromObject, uniqueNames, type PolicySet } from './parse.ts';
import type { SchedulingPolicy } from './types.ts';

/** What was read of one SchedulingPolicy object. */
export interface ObjectReading {
  /** Its resourceVersion (its JSON when it has none): the same revision is not read again. */
  readonly revision: string;
  /** The policy of its last valid revision; absent when it never had one. */
  readonly policy?: SchedulingPolicy;
  /** What is wrong with its current revision; empty when it is valid. */
  readonly errors: readonly PolicyError[];
}

/** Readings by object name. */
export type ObjectReadings = ReadonlyMap<string, ObjectReading>;

/** How errors and policies from the API server name an object: there is no line to point at. */
export const objectOrigin = (name: string): string => `SchedulingPolicy/${name}`;

/**
 * Reads the objects present now, reusing the reading of an unchanged revision and the policy
 * object of an unchanged spec (so that an unchanged set compares equal by reference).
 * Objects no longer present are gone, their policies with them.
 */
export function readPolicyObjects(
  objects: readonly KubeObject[],
  previous: ObjectReadings,
): Map<string, ObjectReading> {
  const readings = new Map<string, ObjectReading>();
  for (const object of objects) {
    const name = typeof object.metadata?.name === 'string' ? object.metadata.name : '';
    const before = previous.get(name);
    const revision =
      typeof object.metadata?.resourceVersion === 'string' ? object.metadata.resourceVersion : JSON.stringify(object);
    readings.set(name, before?.revision === revision ? before : read(object, name, revision, before?.policy));
  }
  return readings;
}

function read(
  object: KubeObject,
  name: string,
  revision: string,
  lastGood: SchedulingPolicy | undefined,
): ObjectReading {
  const { policy, errors } = policyFromObject(object, objectOrigin(name));
  if (policy === undefined) return { revision, errors, ...(lastGood && { policy: lastGood }) };
  const unchanged = lastGood !== undefined && JSON.stringify(lastGood) === JSON.stringify(policy);
  return { revision, errors: [], policy: unchanged ? lastGood : policy };
}

/**
 * The set in force: the directory's policies, then the objects' in name order. A name used by
 * both is an error on the object, and the file's policy is the one applied.
 */
export function combinePolicies(directory: readonly SchedulingPolicy[], objects: ObjectReadings): PolicySet {
  const names = [...objects.keys()].sort();
  const readings = names.map((name) => objects.get(name)!);
  const fromObjects = readings.flatMap((reading) => (reading.policy ? [reading.policy] : []));
  const unique = uniqueNames([...directory, ...fromObjects]);
  return { policies: unique.policies, errors: [...readings.flatMap((reading) => reading.errors), ...unique.errors] };
}

/** Same policies in the same order, by reference: what decides whether the set gets a new version. */
export function samePolicies(a: readonly SchedulingPolicy[], b: readonly SchedulingPolicy[]): boolean {
  return a.length === b.length && a.every((policy, index) => policy === b[index]);
}
