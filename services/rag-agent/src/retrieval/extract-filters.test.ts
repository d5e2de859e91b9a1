import { describe, expect, it } from '@jest/globals';
import { describeFilters, extractFilters, hasFilters } from './extract-filters';

const now = new Date('2026-05-10T12:00:00Z');
const filenames = [
  'employee-handbook.md',
  'pricing-2026.xlsx',
  'release-notes.html',
  'support-tickets.csv',
  'security.txt',
  'pricing.md',
];

function extract(text: string) {
  return extractFilters({ text, filenames, now });
}

describe('extractFilters', () => {
  it('finds document types where a type word names a document', () => {
    expect(extract('What does the PDF say about refunds?').filters).toEqual({ docTypes: ['pdf'] });
    expect(extract('Summarise my spreadsheets').filters).toEqual({ docTypes: ['xlsx', 'csv'] });
    expect(extract('Which CSV files mention Oslo?').filters).toEqual({ docTypes: ['csv'] });
    expect(extract('in the Word document, who signs off?').filters).toEqual({
      docTypes: ['docx'],
    });
    expect(extract('look in the markdown for the policy').filters).toEqual({ docTypes: ['md'] });
    expect(extract('search the web pages for the changelog').filters).toEqual({
      docTypes: ['html'],
    });
    expect(extract('what do the text files say?').mentions).toEqual(['the text files']);
  });

  it('does not treat a type word used as an ordinary word as a filter', () => {
    expect(extract('Does Lumen support PDF export?').filters).toEqual({});
    expect(extract('How do I export a chart to CSV format quickly?').filters).toEqual({});
  });

  it('recognises the tenant’s filenames, whole or by a specific stem', () => {
    expect(extract('What is in pricing-2026.xlsx?').filters).toEqual({
      filenames: ['pricing-2026.xlsx'],
    });
    expect(extract('According to the employee handbook, how many leave days?').filters).toEqual({
      filenames: ['employee-handbook.md'],
    });
    expect(extract('what do the release notes say about 3.2?').filters).toEqual({
      filenames: ['release-notes.html'],
    });
  });

  it('matches a one-word stem only before a document noun', () => {
    expect(extract('What is our security policy for laptops?').filters).toEqual({});
    expect(extract('what does the security file say about laptops?').filters).toEqual({
      filenames: ['security.txt'],
    });
  });

  it('does not add the extension of a named file as a type filter', () => {
    const { filters, mentions } = extract('in support-tickets.csv, which ticket is oldest?');
    expect(filters).toEqual({ filenames: ['support-tickets.csv'] });
    expect(mentions).toEqual(['support-tickets.csv']);
  });

  it('reads creation windows from dates', () => {
    expect(extract('documents since 2025').filters).toEqual({
      createdAfter: '2025-01-01T00:00:00.000Z',
    });
    expect(extract('anything before March 2026?').filters).toEqual({
      createdBefore: '2026-03-01T00:00:00.000Z',
    });
    expect(extract('what did we add in 2024').filters).toEqual({
      createdAfter: '2024-01-01T00:00:00.000Z',
      createdBefore: '2025-01-01T00:00:00.000Z',
    });
    expect(extract('files after 2025-02').filters).toEqual({
      createdAfter: '2025-03-01T00:00:00.000Z',
    });
    expect(extract('until Sept 2025').filters).toEqual({
      createdBefore: '2025-10-01T00:00:00.000Z',
    });
    expect(extract('uploaded between 2024 and 2025').filters).toEqual({
      createdAfter: '2024-01-01T00:00:00.000Z',
      createdBefore: '2026-01-01T00:00:00.000Z',
    });
    expect(extract('notes during last year').filters).toEqual({
      createdAfter: '2025-01-01T00:00:00.000Z',
      createdBefore: '2026-01-01T00:00:00.000Z',
    });
    expect(extract('on 2026-03-15 exactly, in 2026-03-15').filters).toEqual({
      createdAfter: '2026-03-15T00:00:00.000Z',
      createdBefore: '2026-03-16T00:00:00.000Z',
    });
  });

  it('ignores numbers that are not dates in a date position', () => {
    expect(extract('in 12 days, up to 3000 seats').filters).toEqual({});
  });

  it('combines every kind of filter and lists the phrases', () => {
    const result = extract('In the PDF from 2025, what did the pricing sheet say?');
    expect(result.filters).toEqual({
      docTypes: ['pdf'],
      filenames: ['pricing.md'],
      createdAfter: '2025-01-01T00:00:00.000Z',
    });
    expect(result.mentions).toEqual(['pricing sheet', 'the PDF', 'from 2025']);
  });

  it('finds nothing in a plain question', () => {
    const result = extract('How many vacation days do new employees get?');
    expect(result).toEqual({ filters: {}, mentions: [] });
    expect(hasFilters(result.filters)).toBe(false);
  });
});

describe('describeFilters', () => {
  it('says what the filters restrict', () => {
    expect(
      describeFilters({
        docTypes: ['pdf', 'csv'],
        filenames: ['a.md'],
        createdAfter: '2025-01-01T00:00:00.000Z',
      }),
    ).toBe('a.md, PDF/CSV documents, stored since 2025-01-01');
    expect(
      describeFilters({
        createdAfter: '2024-01-01T00:00:00.000Z',
        createdBefore: '2025-01-01T00:00:00.000Z',
      }),
    ).toBe('stored from 2024-01-01 to before 2025-01-01');
  });
});
