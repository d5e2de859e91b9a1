import { describe, expect, it } from '@jest/globals';
import { extractPython } from './extract-python';

describe('extractPython', () => {
  it('takes the first python block of a text', () => {
    expect(extractPython('Run:\n```python\nprint(1)\n```\nand\n```python\nprint(2)\n```')).toBe(
      'print(1)\n',
    );
    expect(extractPython('```py\nx = 1\n\n\n```')).toBe('x = 1\n');
    expect(extractPython('~~~python3\nprint("tilde")\n~~~')).toBe('print("tilde")\n');
  });

  it('skips blocks in other languages and unmarked ones unless asked', () => {
    expect(extractPython('```bash\nrm -rf /\n```\n```\nprint(3)\n```')).toBeUndefined();
    expect(extractPython('```\nprint(3)\n```', { allowUnlabelled: true })).toBe('print(3)\n');
  });

  it('finds nothing in plain text or an empty block', () => {
    expect(extractPython('print(1)')).toBeUndefined();
    expect(extractPython('```python\n\n```')).toBeUndefined();
  });

  it('keeps inner fences of another length and Windows line ends', () => {
    expect(extractPython('````python\ns = """```"""\r\nprint(s)\r\n````')).toBe(
      's = """```"""\nprint(s)\n',
    );
  });
});
