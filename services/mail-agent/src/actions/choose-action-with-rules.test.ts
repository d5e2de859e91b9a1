import { describe, expect, it } from '@jest/globals';
import { chooseActionWithRules } from './choose-action-with-rules';

const now = new Date('2026-03-10T12:00:00Z');

function choose(task: string, context: { label: string; summary: string }[] = []) {
  return chooseActionWithRules({ task, context, now });
}

describe('chooseActionWithRules', () => {
  it('searches the inbox with sender and words', () => {
    expect(choose('Find the mails from bob about the invoice')).toEqual({
      action: 'search',
      folder: 'inbox',
      from: 'bob',
      text: 'invoice',
      to: [],
      cc: [],
    });
  });

  it('searches sent mail and drafts when they are named', () => {
    expect(choose('What did I send to erin@example.test last week?')).toMatchObject({
      action: 'search',
      folder: 'sent',
      toContains: 'erin@example.test',
      since: '2026-03-03',
    });
    expect(choose('search my sent mail for the contract')).toMatchObject({
      folder: 'sent',
      text: 'contract',
    });
    expect(choose('find the mails bob sent me about lunch')).toMatchObject({ folder: 'inbox' });
    expect(choose('Check my drafts for the quarterly report')).toMatchObject({
      action: 'search',
      folder: 'drafts',
      text: 'quarterly report',
    });
  });

  it('reads unread mail since yesterday, and quoted subjects', () => {
    expect(choose('show unread mail since yesterday')).toMatchObject({
      action: 'search',
      unseen: true,
      since: '2026-03-09',
    });
    expect(choose('Read the mail with subject "Team offsite"')).toMatchObject({
      action: 'read',
      subject: 'Team offsite',
    });
  });

  it('sends to the named addresses with cc, subject and body', () => {
    expect(
      choose(
        'Send bob@example.test a mail about the invoice, cc carol@example.test, saying Paid today.',
      ),
    ).toEqual({
      action: 'send',
      folder: 'inbox',
      to: ['bob@example.test'],
      cc: ['carol@example.test'],
      mailSubject: 'The invoice',
      body: 'Paid today.',
    });
  });

  it("uses earlier steps' answers as the body", () => {
    expect(
      choose('Email the report to boss@example.test', [
        { label: 'analyse (code-agent)', summary: 'Sales rose 12%.' },
      ]),
    ).toMatchObject({ action: 'send', to: ['boss@example.test'], body: 'Sales rose 12%.' });
  });

  it('drafts without sending', () => {
    expect(choose('Draft an email to dave@example.test saying see you Friday')).toMatchObject({
      action: 'draft',
      to: ['dave@example.test'],
      body: 'see you Friday',
    });
  });

  it('replies to the newest match, reply-all when asked', () => {
    expect(choose('Reply all to the latest mail from carol saying Count me in')).toMatchObject({
      action: 'reply',
      from: 'carol',
      body: 'Count me in',
      replyAll: true,
    });
  });

  it('falls back to a search, which has no side effect', () => {
    expect(choose('mail stuff').action).toBe('search');
    expect(chooseActionWithRules({ task: 'the usual', context: [], skill: 'draft' }).action).toBe(
      'draft',
    );
    expect(choose('anything from the accountant?')).toMatchObject({
      action: 'search',
      from: 'accountant',
    });
  });
});
