// What every provider and component says of itself in /readyz.

export interface Readiness {
  readonly ready: boolean;
  /** Why not ready, or what is degraded while ready. */
  readonly reason?: string;
}
