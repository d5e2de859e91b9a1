import { describe, expect, it } from '@jest/globals';
import {
  answerMessageId,
  decisionMessageId,
  decisionParts,
  INTERRUPTION_LIMITS,
  readApprovalRequest,
  readQuestion,
} from './interruptions';

describe('readApprovalRequest', () => {
  it('reads the fleet convention as it is', () => {
    expect(
      readApprovalRequest({
        agent: 'mail-agent',
        parts: [
          { text: 'mail-agent needs approval' },
          {
            data: {
              approval: {
                action: 'send-mail',
                summary: 'Send a mail to Bob',
                preview: 'To: bob@example.com',
                risk: 'high',
                expiresAt: '2026-11-24T12:00:00.000Z',
              },
            },
          },
        ],
      }),
    ).toEqual({
      action: 'send-mail',
      summary: 'Send a mail to Bob',
      preview: 'To: bob@example.com',
      risk: 'high',
      expiresAt: '2026-11-24T12:00:00.000Z',
    });
  });

  it('keeps risk given in words, with the level the words name or medium', () => {
    const read = (risk: unknown) =>
      readApprovalRequest({ agent: 'a', parts: [{ data: { approval: { summary: 's', risk } } }] });
    expect(read('Money leaves the company account')).toMatchObject({
      risk: 'medium',
      riskDescription: 'Money leaves the company account',
    });
    expect(read('HIGH: irreversible payment')).toMatchObject({
      risk: 'high',
      riskDescription: 'HIGH: irreversible payment',
    });
    expect(read('Critical')).toEqual(expect.objectContaining({ risk: 'high' }));
    expect(read('Critical')).not.toHaveProperty('riskDescription');
    expect(read(0.1)).toMatchObject({ risk: 'low' });
    expect(read(9)).toMatchObject({ risk: 'high' });
    expect(read({ level: 'low', description: 'read-only' })).toMatchObject({
      risk: 'low',
      riskDescription: 'read-only',
    });
    expect(read(undefined)).toMatchObject({ risk: 'medium' });
  });

  it('takes the status text as summary and preview when there is no data part', () => {
    expect(
      readApprovalRequest({
        agent: 'payments',
        parts: [{ text: 'Pay invoice 42?\nEUR 1,200 to ACME GmbH' }],
      }),
    ).toEqual({
      action: 'continue',
      summary: 'Pay invoice 42?',
      preview: 'Pay invoice 42?\nEUR 1,200 to ACME GmbH',
      risk: 'medium',
    });
  });

  it('defaults everything when the agent says nothing, and reads fields at the top level', () => {
    expect(readApprovalRequest({ agent: 'payments' })).toEqual({
      action: 'continue',
      summary: 'payments asks for approval to continue.',
      preview: 'payments asks for approval to continue.',
      risk: 'medium',
    });
    expect(
      readApprovalRequest({
        agent: 'a',
        parts: [
          {
            data: {
              action: 'delete',
              title: 'Delete 3 files',
              preview: { files: ['a', 'b'] },
              expires_at: 1_800_000_000,
            },
          },
        ],
      }),
    ).toEqual({
      action: 'delete',
      summary: 'Delete 3 files',
      preview: JSON.stringify({ files: ['a', 'b'] }, undefined, 2),
      risk: 'medium',
      expiresAt: new Date(1_800_000_000_000).toISOString(),
    });
  });

  it('bounds every field and ignores an unreadable expiry', () => {
    const read = readApprovalRequest({
      agent: 'a',
      parts: [
        {
          data: {
            approval: {
              action: 'x'.repeat(1000),
              summary: 's'.repeat(5000),
              preview: 'p'.repeat(INTERRUPTION_LIMITS.preview + 10),
              risk: 'w'.repeat(2000),
              expiresAt: 'next tuesday-ish',
            },
          },
        },
      ],
    });
    expect(read.action).toHaveLength(INTERRUPTION_LIMITS.action);
    expect(read.summary).toHaveLength(INTERRUPTION_LIMITS.summary);
    expect(read.preview).toHaveLength(INTERRUPTION_LIMITS.preview);
    expect(read.riskDescription).toHaveLength(INTERRUPTION_LIMITS.riskDescription);
    expect(read).not.toHaveProperty('expiresAt');
  });
});

describe('readQuestion', () => {
  it('reads the text, else a data field, else a generic line', () => {
    expect(readQuestion({ agent: 'a', parts: [{ text: ' Which city? ' }] })).toBe('Which city?');
    expect(
      readQuestion({ agent: 'a', parts: [{ data: { input: { prompt: 'Which day?' } } }] }),
    ).toBe('Which day?');
    expect(readQuestion({ agent: 'a', parts: [{ data: { question: 'Who?' } }] })).toBe('Who?');
    expect(readQuestion({ agent: 'travel' })).toBe('travel needs more information to continue.');
  });
});

describe('continuations', () => {
  it('names each continuation the same way every time', () => {
    expect(decisionMessageId('ap-1')).toBe('fleet-decision-ap-1');
    expect(answerMessageId('in-1')).toBe('fleet-answer-in-1');
  });

  it('says the decision in a data part and in words', () => {
    expect(decisionParts({ decision: 'deny', instructions: 'not before Monday' })).toEqual([
      { text: 'Denied. not before Monday' },
      {
        data: { approvalDecision: { decision: 'deny', instructions: 'not before Monday' } },
        mediaType: 'application/json',
      },
    ]);
    expect(decisionParts({ decision: 'approve' })[0]).toEqual({ text: 'Approved.' });
  });
});
