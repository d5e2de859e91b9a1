import { ConflictError } from '@fleet/errors';
import type { Session, SessionStore } from '@fleet/sessions';

/** Extra tries of a change whose lock was busy. */
const RETRIES = 4;

/**
 * `sessions.update` that tries again when the lock is busy (ConflictError): for the writes a run
 * cannot do without (marking an approval delivered or timed out), where a 409 is no answer.
 */
export async function updateWithRetry<T>(
  sessions: SessionStore,
  { id, mutate }: { id: string; mutate: (draft: Session) => T },
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const { value } = await sessions.update(id, mutate);
      return value;
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
    }
  }
}
