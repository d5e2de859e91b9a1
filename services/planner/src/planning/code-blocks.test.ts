import { describe, expect, it } from '@jest/globals';
import { maskCodeBlocks } from './code-blocks';

describe('maskCodeBlocks', () => {
  it('swaps each fenced block for a placeholder and restores it with its newlines', () => {
    const request = 'Run this:\n```python\nprint(1, 2)\nx = 3.5\n```\nthen email bob.';
    const masked = maskCodeBlocks(request);
    expect(masked.text).toBe('Run this:\n⟦code-block-0⟧\nthen email bob.');
    expect(masked.restore('Run this: ⟦code-block-0⟧')).toBe(
      'Run this:\n```python\nprint(1, 2)\nx = 3.5\n```',
    );
  });

  it('leaves a request without fences, and an unclosed fence, as it is', () => {
    expect(maskCodeBlocks('Say hello, then stop.').text).toBe('Say hello, then stop.');
    const unclosed = 'Run ```python\nprint(1)';
    expect(maskCodeBlocks(unclosed).text).toBe(unclosed);
  });
});
