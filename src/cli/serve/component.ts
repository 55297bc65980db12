// What a background part of serve is: started once the policies, the topology
// and the decider are up, before the webhook listens, and stopped after the
// webhook has closed, in reverse order. The list is components.ts.

import type { PodDecider, PodDeferrer } from '../../admission/handler.ts';
import type { ControlPlaneStatus } from '../../ports/controlplane.ts';
import type { Decision, PodRequest } from '../../policy/types.ts';
import type { PolicyProvider } from '../../ports/policies.ts';
import type { Readiness } from '../../ports/readiness.ts';
import type { TopologyProvider } from '../../ports/topology.ts';
import type { Decider } from '../../server/decider.ts';
import type { KubeTopology } from '../../sources/topology/kube.ts';
import type { ServeConfig } from './config.ts';
import type { Shell } from './shell.ts';

export interface ServeContext extends Shell {
  readonly config: ServeConfig;
  readonly policies: PolicyProvider;
  readonly topology: TopologyProvider | KubeTopology;
  readonly decide: PodDecider;
  readonly decider: Decider;
  /** The components started before this one, in start-up order. */
  readonly started: readonly StartedComponent[];
}

export interface StartedComponent {
  /** Shown in /readyz under the component's name; serve is not ready while this is not. */
  readiness?(): Readiness;
  /** The component that releases deferred Pods (placement) offers the webhook its deferrer. */
  readonly defer?: PodDeferrer;
  /** Told of every Pod decision the webhook makes, after it is made (the view's recent decisions). */
  readonly observe?: DecisionObserver;
  /** The placement controller's decisions (a deferred Pod released), told to what subscribes; returns unsubscribe. */
  readonly onPlaced?: (observer: DecisionObserver) => () => void;
  /** The control plane's measured status (the controlplane component offers it to the view). */
  readonly controlPlaneStatus?: () => ControlPlaneStatus;
  stop(): Promise<void>;
}

export type DecisionObserver = (request: PodRequest, decision: Decision, milliseconds: number) => void;

export interface ServeComponent {
  readonly name: string;
  /** Resolves to undefined when the configuration does not ask for this component. */
  start(context: ServeContext): Promise<StartedComponent | undefined>;
}
