import { describe, expect, it } from '@jest/globals';
import { argumentsDigest, createApprovalStateCodec, requestStateKey } from './approval-state';

const TOKEN = 'internal-token-0123456789';
const state = (argsDigest: string) => ({
  tenant: 'acme',
  sessionId: 's-1',
  approvalId: 'ap-1',
  expiresAt: Date.now() + 60_000,
  argumentsDigest: argsDigest,
});

describe('approval states', () => {
  it('digests arguments whatever the order of their keys, and tells other arguments apart', () => {
    expect(argumentsDigest({ question: 'q', route: 'auto' })).toBe(
      argumentsDigest({ route: 'auto', question: 'q' }),
    );
    expect(argumentsDigest({ question: 'q' })).not.toBe(argumentsDigest({ question: 'Q' }));
    expect(argumentsDigest({ question: 'q' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('derives one key from one internal token, so replicas agree; the secret wins', () => {
    const a = requestStateKey({ internalToken: TOKEN });
    expect(requestStateKey({ internalToken: TOKEN })).toEqual(a);
    expect(requestStateKey({ internalToken: `${TOKEN}x` })).not.toEqual(a);
    expect(a).not.toEqual(Buffer.from(TOKEN));
    const secret = 's'.repeat(40);
    expect(requestStateKey({ secret, internalToken: TOKEN })).toEqual(Buffer.from(secret));
    // Without either, a key of the process: two are never alike.
    expect(requestStateKey({})).not.toEqual(requestStateKey({}));
  });

  it('verifies its own state, and refuses one signed with another key', () => {
    const digest = argumentsDigest({ question: 'q' });
    const wire = createApprovalStateCodec(requestStateKey({ internalToken: TOKEN })).mint(
      state(digest),
    );
    const same = createApprovalStateCodec(requestStateKey({ internalToken: TOKEN }));
    expect(same.verify(wire, { tenant: 'acme', argumentsDigest: digest })).toMatchObject({
      sessionId: 's-1',
      approvalId: 'ap-1',
    });
    const other = createApprovalStateCodec(requestStateKey({ internalToken: `${TOKEN}x` }));
    expect(() => other.verify(wire, { tenant: 'acme', argumentsDigest: digest })).toThrow(
      /signature/,
    );
    expect(() =>
      same.verify('x'.repeat(5000), { tenant: 'acme', argumentsDigest: digest }),
    ).toThrow(/malformed/);
    expect(() => same.verify('not-a-state', { tenant: 'acme', argumentsDigest: digest })).toThrow(
      /malformed/,
    );
  });

  it('names what a state answers; a state without a kind is an approval’s', () => {
    const digest = argumentsDigest({ question: 'q' });
    const codec = createApprovalStateCodec(requestStateKey({ internalToken: TOKEN }));
    const expected = { tenant: 'acme', argumentsDigest: digest };
    const question = codec.mint({ ...state(digest), kind: 'question', approvalId: 'in-1' });
    expect(codec.verify(question, expected)).toMatchObject({
      kind: 'question',
      approvalId: 'in-1',
    });
    const review = codec.mint({ ...state(digest), kind: 'review', approvalId: 'rv-1' });
    expect(codec.verify(review, expected)).toMatchObject({ kind: 'review', approvalId: 'rv-1' });
    expect(codec.verify(codec.mint(state(digest)), expected)).toMatchObject({ kind: 'approval' });
    // The kind is signed: a question's state made an approval's does not verify.
    const [body, mac] = question.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { k?: string };
    delete payload.k;
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    expect(() => codec.verify(forged, expected)).toThrow(/signature/);
  });
});
