import { FleetError } from '@fleet/errors';
import { resumeInBackground } from '../sessions';
import type { ApprovalChoice, AskScope } from './ask-scope';

/**
 * Records the caller's decision on one of a session's approvals and resumes the session's run in
 * the background. An approval already decided (here, in the console, or by a cancel) or expired is
 * left as it stands, and the run still resumes.
 */
export async function decideAndResume(
  { deps, caller }: AskScope,
  {
    sessionId,
    approvalId,
    decision,
    instructions,
  }: { sessionId: string; approvalId: string } & ApprovalChoice,
): Promise<void> {
  const { sessions } = deps;
  const { tenant } = caller;
  try {
    await sessions.decideApproval({
      sessionId,
      approvalId,
      tenant,
      decision,
      ...(instructions === undefined || instructions === '' ? {} : { instructions }),
    });
  } catch (error) {
    // Decided already (here, in the console, or by a cancel) or expired: the run goes on as it stands.
    if (!(FleetError.isInstance(error) && error.status === 409)) throw error;
  }
  resumeFollowed({ deps, caller }, sessionId);
}

/**
 * Resumes the session's run in the background (as the approval and review routes do), so a
 * decision made over MCP goes on even when no orchestrator runs the session any more.
 */
export function resumeFollowed(
  { deps, caller }: Pick<AskScope, 'deps' | 'caller'>,
  sessionId: string,
): void {
  void resumeInBackground({
    store: deps.sessions,
    client: deps.route?.orchestratorClient,
    logger: deps.logger,
    sessionId,
    toolPolicy: deps.route?.toolPermissions?.policyFor(caller.tenant),
  });
}
