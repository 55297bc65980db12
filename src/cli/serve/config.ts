// What `serve` runs with: one part per flag group (flags/). A new group adds its part here.

import type { AuditFlags } from './flags/audit.ts';
import type { ControlPlaneFlags } from './flags/controlplane.ts';
import type { LoggingFlags } from './flags/logging.ts';
import type { PlacementFlags } from './flags/placement.ts';
import type { PolicyFlags } from './flags/policies.ts';
import type { TopologyFlags } from './flags/topology.ts';
import type { ViewFlags } from './flags/view.ts';
import type { WebhookFlags } from './flags/webhook.ts';

export type ServeConfig = PolicyFlags &
  TopologyFlags &
  ControlPlaneFlags &
  WebhookFlags &
  PlacementFlags &
  AuditFlags &
  LoggingFlags &
  ViewFlags;
