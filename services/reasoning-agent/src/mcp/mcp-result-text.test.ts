import { describe, expect, it } from '@jest/globals';
import { mcpResultText } from './mcp-result-text';

describe('mcpResultText', () => {
  it('joins text blocks and names media and links instead of passing their bytes', () => {
    expect(
      mcpResultText(
        {
          content: [
            { type: 'text', text: 'two rows' },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'file:///a.txt', text: 'alpha' } },
            { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
            { type: 'resource_link', uri: 'file:///c.md', name: 'c.md' },
          ],
        },
        1_000,
      ),
    ).toBe(
      'two rows\n[image: image/png]\nalpha\n[resource: file:///b.bin]\n[link: file:///c.md (c.md)]',
    );
  });

  it('reads structured content as JSON when no block carries text', () => {
    expect(mcpResultText({ content: [], structuredContent: { rows: [{ n: 1 }] } }, 1_000)).toBe(
      '{"rows":[{"n":1}]}',
    );
    // A server that sends both repeats the JSON as text: it is not read twice.
    expect(
      mcpResultText(
        { content: [{ type: 'text', text: 'n = 1' }], structuredContent: { n: 1 } },
        1_000,
      ),
    ).toBe('n = 1');
  });

  it('cuts at maxChars and says how much was left out', () => {
    expect(mcpResultText({ content: [{ type: 'text', text: 'abcdefghij' }] }, 4)).toBe(
      'abcd\n[… 6 more characters of this result were cut]',
    );
  });
});
