import { describe, expect, it } from '@jest/globals';
import { toolApproval } from './tool-approval';

const untrusted = { readOnly: false, destructive: true, idempotent: false, openWorld: true };

describe('toolApproval', () => {
  it('asks for every tool of an untrusted server (its hints count as absent)', () => {
    expect(toolApproval({ hints: untrusted, approval: undefined })).toMatchObject({
      required: true,
      risk: 'high',
    });
  });

  it('runs a trusted read-only tool at once and asks for additive and destructive ones', () => {
    const readOnly = { ...untrusted, readOnly: true, destructive: false };
    expect(toolApproval({ hints: readOnly, approval: undefined })).toMatchObject({
      required: false,
      risk: 'low',
    });
    const additive = { ...untrusted, destructive: false };
    expect(toolApproval({ hints: additive, approval: undefined })).toMatchObject({
      required: true,
      risk: 'medium',
    });
  });

  it("lets the operator's rule decide either way", () => {
    expect(toolApproval({ hints: untrusted, approval: 'never' }).required).toBe(false);
    const readOnly = { ...untrusted, readOnly: true, destructive: false };
    expect(toolApproval({ hints: readOnly, approval: 'always' })).toMatchObject({
      required: true,
      risk: 'low',
    });
  });
});
