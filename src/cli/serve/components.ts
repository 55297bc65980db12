// Background parts of serve (controllers, collectors, extra listeners), in start
// order. A new one is a file exporting a ServeComponent (component.ts) and one
// line here.

import type { ServeComponent } from './component.ts';
import { controlPlaneComponent } from './controlplane.ts';
import { placement } from './placement.ts';
import { policyWriter } from './policy-writer.ts';
import { view } from './view.ts';

/** Started in this order. */
export const components: readonly ServeComponent[] = [placement, policyWriter, controlPlaneComponent, view];
