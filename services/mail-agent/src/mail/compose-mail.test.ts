import { describe, expect, it } from '@jest/globals';
import { bareAddress, composeMail, renderMailPreview } from './compose-mail';
import { outgoingMailSchema } from './mail-message';

const mail = outgoingMailSchema.parse({
  from: 'Alice <alice@example.test>',
  to: ['Carol <carol@example.test>'],
  cc: ['dave@example.test'],
  subject: 'Re: Team offsite',
  text: 'Count me in!',
  inReplyTo: '<offsite@example.test>',
  references: ['<planning@example.test>', '<offsite@example.test>'],
});

describe('composeMail', () => {
  it('renders the thread headers, a Message-ID on the sender domain and the envelope', async () => {
    const composed = await composeMail(mail, new Date('2026-03-10T12:00:00Z'));
    const raw = composed.raw.toString('utf8');
    expect(composed.messageId).toMatch(/^<[0-9a-f-]{36}@example\.test>$/);
    expect(raw).toContain(`Message-ID: ${composed.messageId}`);
    expect(raw).toContain('In-Reply-To: <offsite@example.test>');
    expect(raw).toContain('References: <planning@example.test> <offsite@example.test>');
    expect(raw).toContain('Subject: Re: Team offsite');
    expect(raw).toContain('Cc: dave@example.test');
    expect(raw).toContain('Count me in!');
    expect(composed.envelope).toEqual({
      from: 'alice@example.test',
      to: ['carol@example.test', 'dave@example.test'],
    });
  });
});

describe('renderMailPreview', () => {
  it('shows from, to, cc, subject and the whole body', () => {
    expect(renderMailPreview(mail)).toBe(
      'From: Alice <alice@example.test>\nTo: Carol <carol@example.test>\nCc: dave@example.test\nSubject: Re: Team offsite\nIn-Reply-To: <offsite@example.test>\n\nCount me in!',
    );
  });
});

describe('bareAddress', () => {
  it('takes the address out of a display name', () => {
    expect(bareAddress('Bob <bob@example.test>')).toBe('bob@example.test');
    expect(bareAddress(' bob@example.test ')).toBe('bob@example.test');
  });
});
