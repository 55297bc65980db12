import { createNetwork, destroyNetwork } from './netns.ts';
import { nodePlans } from './nodeplan.ts';
if (process.argv[2] === 'down') await destroyNetwork();
else await createNetwork(nodePlans(3));
