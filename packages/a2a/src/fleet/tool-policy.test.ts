import { describe, expect, it } from '@jest/globals';
import { isToolPermitted, parseToolSkillId, toolPolicySchema, toolSkillId } from './tool-policy';

describe('tool policy', () => {
  it('permits everything without a policy and everything not denied without an allow list', () => {
    expect(isToolPermitted(undefined, 'memory', 'delete_entities')).toBe(true);
    expect(isToolPermitted({ deny: ['memory/delete_*'] }, 'memory', 'delete_entities')).toBe(false);
    expect(isToolPermitted({ deny: ['memory/delete_*'] }, 'memory', 'read_graph')).toBe(true);
  });

  it('lets deny win over allow and keeps an allow list closed', () => {
    const policy = { allow: ['filesystem/*'], deny: ['*/write_file'] };
    expect(isToolPermitted(policy, 'filesystem', 'read_text_file')).toBe(true);
    expect(isToolPermitted(policy, 'filesystem', 'write_file')).toBe(false);
    expect(isToolPermitted(policy, 'memory', 'read_graph')).toBe(false);
  });

  it('treats regex characters in patterns literally', () => {
    expect(isToolPermitted({ allow: ['a.b/t'] }, 'aXb', 't')).toBe(false);
    expect(isToolPermitted({ allow: ['a.b/t'] }, 'a.b', 't')).toBe(true);
  });

  it('round-trips skill ids and refuses ids that are not tools', () => {
    expect(parseToolSkillId(toolSkillId('memory', 'read_graph'))).toEqual({
      server: 'memory',
      tool: 'read_graph',
    });
    expect(parseToolSkillId('search-documents')).toBeUndefined();
    expect(parseToolSkillId('a/b/c')).toBeUndefined();
    expect(parseToolSkillId('/b')).toBeUndefined();
  });

  it('refuses malformed patterns and unknown fields', () => {
    expect(toolPolicySchema.safeParse({ deny: ['no-slash'] }).success).toBe(false);
    expect(toolPolicySchema.safeParse({ deny: ['a/b'], extra: 1 }).success).toBe(false);
    expect(toolPolicySchema.safeParse({ allow: ['filesystem/*'] }).success).toBe(true);
  });
});
