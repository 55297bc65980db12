// Checks that a parsed body is an AdmissionReview this webhook can answer, and
// says precisely what is wrong when it is not. Fields topogate does not read
// (userInfo, options, oldObject, …) are not checked.

import { isRecord } from '../kube/json.ts';
import type { AdmissionRequest, AdmissionReviewRequest } from './review.ts';
import { isPodCreate } from './pod.ts';
import { admissionApiVersions, isAdmissionApiVersion } from './review.ts';

export type DecodeResult =
  { readonly ok: true; readonly review: AdmissionReviewRequest } | { readonly ok: false; readonly message: string };

export function decodeReview(body: unknown): DecodeResult {
  if (!isRecord(body)) return invalid(`the body must be a JSON object (an AdmissionReview), not ${describe(body)}`);
  const { apiVersion, kind, request } = body;
  if (!isAdmissionApiVersion(apiVersion))
    return invalid(unexpected('apiVersion', apiVersion, `one of ${admissionApiVersions.join(', ')}`));
  if (kind !== 'AdmissionReview') return invalid(unexpected('kind', kind, 'AdmissionReview'));
  if (request === undefined || request === null) return invalid('request is missing');
  if (!isRecord(request)) return invalid(`request must be an object, not ${describe(request)}`);
  const problem = requestProblem(request);
  if (problem !== undefined) return invalid(problem);
  return { ok: true, review: { apiVersion, request: request as unknown as AdmissionRequest } };
}

function requestProblem(request: Record<string, unknown>): string | undefined {
  if (typeof request.uid !== 'string' || request.uid === '')
    return 'request.uid is missing: it must be a non-empty string';
  if (typeof request.operation !== 'string' || request.operation === '')
    return 'request.operation is missing: it must be CREATE, UPDATE, DELETE or CONNECT';
  for (const field of ['subResource', 'name', 'namespace'] as const) {
    if (request[field] !== undefined && typeof request[field] !== 'string')
      return `request.${field} must be a string, not ${describe(request[field])}`;
  }
  if (request.dryRun !== undefined && request.dryRun !== null && typeof request.dryRun !== 'boolean')
    return `request.dryRun must be a boolean, not ${describe(request.dryRun)}`;
  const problem = groupProblem(request, 'kind') ?? groupProblem(request, 'resource');
  if (problem !== undefined) return problem;
  if (isPodCreate(request as unknown as AdmissionRequest) && !isRecord(request.object))
    return `request.object must be the Pod being created, not ${describe(request.object)}`;
  return undefined;
}

/** request.kind is {group, version, kind}; request.resource is {group, version, resource}. */
function groupProblem(request: Record<string, unknown>, field: 'kind' | 'resource'): string | undefined {
  const value = request[field];
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) return `request.${field} must be an object {group, version, ${field}}, not ${describe(value)}`;
  for (const part of ['group', 'version', field]) {
    if (value[part] !== undefined && typeof value[part] !== 'string')
      return `request.${field}.${part} must be a string, not ${describe(value[part])}`;
  }
  return undefined;
}

function unexpected(field: string, value: unknown, expected: string): string {
  return value === undefined
    ? `${field} is missing: expected ${expected}`
    : `${field} is ${preview(value)}: expected ${expected}`;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function invalid(message: string): DecodeResult {
  return { ok: false, message: `not an AdmissionReview: ${message}` };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
