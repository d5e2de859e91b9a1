import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@fleet/errors';
import { buildSearchQuery, fullTextQuery } from './build-search-query';

const base = { tenant: 't', text: 'refund policy', embedding: [0.6, 0.8] };

/** The `$n` placeholders a statement uses. */
function placeholders(text: string): number[] {
  return [...new Set([...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])))].sort(
    (a, b) => a - b,
  );
}

describe('buildSearchQuery', () => {
  it('passes exactly the parameters the statement uses, in every mode', () => {
    for (const mode of ['hybrid', 'vector', 'text'] as const) {
      for (const filters of [
        undefined,
        { docTypes: ['pdf' as const], createdAfter: '2024-01-01' },
      ]) {
        const query = buildSearchQuery({ ...base, mode, filters }, { iterativeScan: true });
        expect(placeholders(query.text)).toEqual(query.values.map((_, index) => index + 1));
      }
    }
    const text = buildSearchQuery({ ...base, mode: 'text' }, { iterativeScan: true });
    expect(text.values).not.toContain('[0.6,0.8]');
    const vector = buildSearchQuery({ ...base, mode: 'vector' }, { iterativeScan: true });
    expect(vector.values).toContain('[0.6,0.8]');
    expect(vector.values).not.toContain('refund policy');
  });

  it('sets ef_search (at least the candidates) and iterative scans for the indexed vector arm only', () => {
    expect(buildSearchQuery(base, { iterativeScan: true }).settings).toEqual([
      'SET LOCAL hnsw.ef_search = 120',
      'SET LOCAL hnsw.iterative_scan = relaxed_order',
    ]);
    expect(
      buildSearchQuery({ ...base, efSearch: 20, candidates: 60 }, { iterativeScan: false })
        .settings,
    ).toEqual(['SET LOCAL hnsw.ef_search = 60']);
    expect(buildSearchQuery({ ...base, efSearch: 400 }, { iterativeScan: false }).settings).toEqual(
      ['SET LOCAL hnsw.ef_search = 400'],
    );
    expect(buildSearchQuery({ ...base, exact: true }, { iterativeScan: true }).settings).toEqual(
      [],
    );
    expect(buildSearchQuery({ ...base, mode: 'text' }, { iterativeScan: true }).settings).toEqual(
      [],
    );
  });

  it('orders the exact vector arm by an expression no index can serve', () => {
    const exact = buildSearchQuery({ ...base, exact: true }, { iterativeScan: false });
    expect(exact.text).toMatch(/ORDER BY \(c\.embedding <=> \$\d+::vector\) \+ 0/);
    const indexed = buildSearchQuery(base, { iterativeScan: false });
    expect(indexed.text).toMatch(/ORDER BY distance\s/);
  });

  it('escapes LIKE wildcards in filename filters', () => {
    const query = buildSearchQuery(
      { ...base, filters: { filenames: ['100%_a\\b'] } },
      { iterativeScan: false },
    );
    expect(query.values).toContainEqual(['%100\\%\\_a\\\\b%']);
  });

  it('rejects bad numbers and dates', () => {
    const options = { iterativeScan: false };
    expect(() => buildSearchQuery({ ...base, limit: 0 }, options)).toThrow(ValidationError);
    expect(() => buildSearchQuery({ ...base, limit: 2.5 }, options)).toThrow(ValidationError);
    expect(() => buildSearchQuery({ ...base, efSearch: 5000 }, options)).toThrow(ValidationError);
    expect(() =>
      buildSearchQuery({ ...base, filters: { createdBefore: 'soon' } }, options),
    ).toThrow(/createdBefore must be an ISO 8601 date/);
    expect(() => buildSearchQuery({ ...base, tenant: '' }, options)).toThrow(ValidationError);
  });
});

describe('fullTextQuery', () => {
  it('matches any word of plain text and keeps websearch syntax as written', () => {
    expect(fullTextQuery('how many vacation days?', '$1')).toBe(
      "replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery",
    );
    expect(fullTextQuery('monthly or annual', '$1')).toContain('plainto_tsquery');
    expect(fullTextQuery('"annual plan" refund', '$1')).toBe("websearch_to_tsquery('english', $1)");
    expect(fullTextQuery('refund -monthly', '$1')).toContain('websearch_to_tsquery');
    expect(fullTextQuery('state-of-the-art', '$1')).toContain('plainto_tsquery');
  });
});
