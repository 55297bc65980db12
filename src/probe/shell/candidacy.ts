// Campaigning for the writer's Lease only while this agent is a candidate
// (src/probe/candidates.ts). Looked at locally every `everyMs`: no API request.
// A holder keeps campaigning even when it drops out of the candidates, so a
// change in the Pods never hands the writer over by itself.

import type { Logger } from 'pino';
import type { LeaderElection } from '../../kube-client/lease.ts';

export interface CandidacyOptions {
  /** Whether this agent is a candidate now; undefined while it cannot know (the Pods not listed yet). */
  readonly isCandidate: () => boolean | undefined;
  readonly campaign: () => LeaderElection;
  readonly everyMs: number;
  readonly log: Logger;
}

export interface Candidacy {
  campaigning(): boolean;
  stop(): Promise<void>;
}

export function startCandidacy({ isCandidate, campaign, everyMs, log }: CandidacyOptions): Candidacy {
  let election: LeaderElection | undefined;
  let settling: Promise<void> = Promise.resolve();
  const look = () => {
    const candidate = isCandidate();
    if (candidate === undefined) return;
    if (candidate && election === undefined) {
      election = campaign();
      log.info('among the Lease candidates: campaigning');
    } else if (!candidate && election !== undefined && !election.isLeader()) {
      const leaving = election;
      election = undefined;
      settling = settling.then(() => leaving.stop());
      log.info('no longer among the Lease candidates: not campaigning');
    }
  };
  const timer = setInterval(look, everyMs);
  look();
  return {
    campaigning: () => election !== undefined,
    async stop() {
      clearInterval(timer);
      await settling;
      await election?.stop();
      election = undefined;
    },
  };
}
