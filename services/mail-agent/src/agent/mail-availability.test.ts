import { describe, expect, it } from '@jest/globals';
import { agentCardSchema } from '@fleet/a2a';
import { AVAILABILITY_EXTENSION_URI } from '@fleet/agent-kit';
import { MAILBOX_HINT } from '../config';
import { buildMailCard } from './mail-card';
import { mailAvailability } from './mail-availability';

const IMAP = { host: 'imap.example.test', port: 993, secure: true };
const SMTP = { host: 'smtp.example.test', port: 465, secure: true };

/** The availability the card's extension declares. */
function declared(account: Parameters<typeof mailAvailability>[0]): unknown {
  const card = agentCardSchema.parse(
    buildMailCard({ url: 'http://127.0.0.1:8085', availability: mailAvailability(account) }),
  );
  return card.capabilities.extensions?.find(
    (extension) => extension.uri === AVAILABILITY_EXTENSION_URI,
  )?.params;
}

describe('mailAvailability', () => {
  it('is unconfigured without IMAP and SMTP, saying what to set', () => {
    expect(declared(undefined)).toEqual({ state: 'unconfigured', reason: MAILBOX_HINT });
  });

  it('is degraded with send and reply unavailable with IMAP only', () => {
    expect(declared({ imap: IMAP })).toEqual({
      state: 'degraded',
      reason: expect.stringContaining('MAIL_SMTP_HOST') as unknown as string,
      unavailableSkills: ['send', 'reply'],
    });
  });

  it('is degraded with search, read and draft unavailable with SMTP only', () => {
    expect(declared({ smtp: SMTP })).toEqual({
      state: 'degraded',
      reason: expect.stringContaining('MAIL_IMAP_HOST') as unknown as string,
      unavailableSkills: ['search', 'read', 'draft'],
    });
  });

  it('is ready with both', () => {
    expect(declared({ imap: IMAP, smtp: SMTP })).toEqual({ state: 'ready' });
  });

  it('names only skills the card has', () => {
    const card = buildMailCard({ url: 'http://127.0.0.1:8085' });
    const ids = card.skills.map((skill) => skill.id);
    for (const account of [{ imap: IMAP }, { smtp: SMTP }]) {
      for (const skill of mailAvailability(account).unavailableSkills ?? []) {
        expect(ids).toContain(skill);
      }
    }
    expect(card.capabilities.extensions).toBeUndefined();
  });
});
