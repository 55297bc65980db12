// The ControlPlane object's status (docs/controlplane.md): what `topogate
// controlplane --output json` prints and what one serve replica writes; the
// port between the collector that makes it and the view that shows it.
// A figure nothing could be measured for (no observation in the window, a
// source that did not answer) is left out rather than written as zero.

export interface Placement {
  readonly nodeName?: string;
  readonly zone?: string;
}

export interface LeaderStatus extends Placement {
  /** The Lease's spec.holderIdentity. */
  readonly holder: string;
}

export interface EtcdMemberStatus extends Placement {
  readonly name: string;
  readonly isLeader: boolean;
  readonly walFsyncP99Ms?: number;
  readonly backendCommitP99Ms?: number;
  /** Mean RTT to each peer, by member name. */
  readonly peerRttMs: Readonly<Record<string, number>>;
}

export interface SourceAge {
  /** When the source last answered (RFC 3339). */
  readonly observedAt?: string;
  /** Why it does not answer now. */
  readonly error?: string;
}

export type ControlPlaneSource = 'apiServer' | 'etcd' | 'scheduler' | 'leases' | 'watch';

export interface ControlPlaneStatus {
  readonly observedAt: string;
  /** The span the p99s and counts are over, in seconds. */
  readonly windowSeconds: number;
  readonly apiServer?: {
    readonly writeP99Ms?: number;
    readonly webhook: { readonly failOpen5m: number; readonly requests5m: number; readonly admissionP99Ms?: number };
  };
  readonly etcd?: { readonly leader?: string; readonly members: readonly EtcdMemberStatus[] };
  readonly scheduler?: { readonly leader?: LeaderStatus; readonly attemptP99Ms?: number; readonly bindP99Ms?: number };
  readonly controllerManager?: { readonly leader?: LeaderStatus };
  readonly watch?: { readonly e2eP50Ms?: number; readonly e2eP99Ms?: number; readonly samples: number };
  /** What an operator should fix, most serious first. */
  readonly findings: readonly string[];
  /** Each source's age and error, as the topology sources report theirs. */
  readonly sources: Readonly<Partial<Record<ControlPlaneSource, SourceAge>>>;
}
