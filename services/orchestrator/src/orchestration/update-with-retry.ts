import { DelegateBackoff, handleType, retry } from 'cockatiel';
import { ConflictError } from '@fleet/errors';
import type { Session, SessionStore } from '@fleet/sessions';

/** Extra tries of a change whose lock was busy. */
const RETRIES = 4;

/** Busy locks only (ConflictError), {@link RETRIES} more tries, 50, 100, 150 and 200 ms apart. */
const busyLockRetry = retry(handleType(ConflictError), {
  maxAttempts: RETRIES,
  backoff: new DelegateBackoff<{ attempt: number }>(({ attempt }) => 50 * attempt),
});

/**
 * `sessions.update` that tries again when the lock is busy (ConflictError): for the writes a run
 * cannot do without (marking an approval delivered or timed out), where a 409 is no answer.
 */
export async function updateWithRetry<T>(
  sessions: SessionStore,
  { id, mutate }: { id: string; mutate: (draft: Session) => T },
): Promise<T> {
  return busyLockRetry.execute(async () => (await sessions.update(id, mutate)).value);
}
