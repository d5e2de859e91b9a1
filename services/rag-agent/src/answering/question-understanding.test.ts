import { describe, expect, it } from '@jest/globals';
import type { Retrieval, RetrievedChunk } from '../retrieval';
import { composeExtractiveAnswer } from './compose-extractive-answer';

function retrievalOf(text: string, section = 'Policies > Travel'): Retrieval {
  const chunk: RetrievedChunk = {
    chunkId: '1',
    documentId: 'doc-1',
    filename: 'policies.md',
    docType: 'md',
    section,
    score: 2 / 61,
    text,
  };
  return {
    query: 'q',
    chunks: [chunk],
    filters: { requested: {}, mentions: [], applied: false },
    candidates: 1,
    reranked: false,
    confidence: 0.8,
    documents: 1,
    searchMode: 'hybrid',
  };
}

describe('composeExtractiveAnswer (questions in other words than the documents)', () => {
  it('answers a question put in other words than the document (annual leave → vacation)', () => {
    const answer = composeExtractiveAnswer({
      question: 'How much annual leave do I get?',
      retrieval: retrievalOf(
        'Staff receive 30 days of vacation per year. The annual report is published in May.',
        'Handbook > Time',
      ),
    });
    expect(answer.text).toContain('30 days of vacation');
  });

  it('answers a deadline with the sentence stating the time limit, and "who" with the role', () => {
    const answer = composeExtractiveAnswer({
      question: 'Who approves travel bookings, and what is the deadline for submitting them?',
      retrieval: retrievalOf(
        'Travel bookings are approved by your team lead. Submit travel bookings within 10 days of the trip. Bookings submitted late are refused.',
      ),
    });
    expect(answer.text).toContain('team lead');
    expect(answer.text).toContain('within 10 days');
  });

  it('answers "at what time" with the sentence holding a clock time', () => {
    const answer = composeExtractiveAnswer({
      question: 'By what time do I have to tell my boss that I am sick?',
      retrieval: retrievalOf(
        'Sick leave is paid in full. If you are ill, tell your manager before 9:30 on the first day.',
        'Handbook > Absence',
      ),
    });
    expect(answer.text).toMatch(/^If you are ill, tell your manager before 9:30/);
  });
});
