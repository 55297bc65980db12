// The AdmissionReview wire format (admission.k8s.io/v1 and v1beta1 share it),
// as far as topogate reads and writes it. Requests come from the network:
// decode.ts checks the fields below before anything trusts them.

export const admissionApiVersions = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;

export type AdmissionApiVersion = (typeof admissionApiVersions)[number];

export function isAdmissionApiVersion(value: unknown): value is AdmissionApiVersion {
  return (admissionApiVersions as readonly unknown[]).includes(value);
}

/** The API server always sends every part; a missing group reads as "" (core). */
export interface GroupVersionKind {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
}

export interface GroupVersionResource {
  readonly group?: string;
  readonly version?: string;
  readonly resource?: string;
}

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind?: GroupVersionKind;
  readonly resource?: GroupVersionResource;
  readonly subResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  /** CREATE, UPDATE, DELETE or CONNECT; other values are passed through unchanged. */
  readonly operation: string;
  readonly object?: unknown;
  readonly dryRun?: boolean;
}

/** A decoded review: the request and the version the answer must use. */
export interface AdmissionReviewRequest {
  readonly apiVersion: AdmissionApiVersion;
  readonly request: AdmissionRequest;
}

export interface AdmissionStatus {
  readonly code: number;
  readonly message: string;
  readonly reason: string;
}

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: AdmissionStatus;
  readonly patchType?: 'JSONPatch';
  /** Base64 of the JSON Patch document. */
  readonly patch?: string;
  readonly warnings?: readonly string[];
  readonly auditAnnotations?: Readonly<Record<string, string>>;
}

export interface AdmissionReviewResponse {
  readonly apiVersion: AdmissionApiVersion;
  readonly kind: 'AdmissionReview';
  readonly response: AdmissionResponse;
}
