import { describe, expect, it } from '@jest/globals';
import { splitQuestion } from './split-question';

describe('splitQuestion', () => {
  it('splits at a conjunction that opens a new question', () => {
    expect(splitQuestion('What is the total budget for Project Heron and who owns it?')).toEqual([
      'What is the total budget for Project Heron',
      'who owns it',
    ]);
    expect(splitQuestion('How long is parental leave at Kestrel, and is it paid?')).toEqual([
      'How long is parental leave at Kestrel',
      'is it paid',
    ]);
    expect(
      splitQuestion(
        'What is the minimum password length, and within how many hours must an incident be reported?',
      ),
    ).toEqual([
      'What is the minimum password length',
      'within how many hours must an incident be reported',
    ]);
  });

  it('splits at question marks, semicolons and commas between questions', () => {
    expect(splitQuestion('When does the pilot start? Who owns Project Heron?')).toEqual([
      'When does the pilot start',
      'Who owns Project Heron',
    ]);
    expect(splitQuestion('What is the SLA uptime; when are maintenance windows')).toEqual([
      'What is the SLA uptime',
      'when are maintenance windows',
    ]);
    expect(splitQuestion('What does it cost, who approves it, when is it due?')).toEqual([
      'What does it cost',
      'who approves it',
      'when is it due',
    ]);
  });

  it('keeps single questions whole', () => {
    for (const question of [
      'What discount do schools and universities get on Beacon?',
      'In the CSV, who owns support ticket KST-1042?',
      'According to the pricing spreadsheet, what is the monthly price per sensor?',
      'Which documents were stored between 2024 and 2025?',
      'What service credit applies when monthly uptime falls below 99.0%?',
    ]) {
      expect(splitQuestion(question)).toEqual([question.replace(/\?$/, '')]);
    }
  });

  it('joins a part without a subject to its neighbour and bounds the number of parts', () => {
    expect(splitQuestion('Explain when and how the outage happened')).toEqual([
      'Explain when and how the outage happened',
    ]);
    expect(splitQuestion('What did the outage cost, and why?')).toEqual([
      'What did the outage cost and why',
    ]);
    expect(
      splitQuestion('Who is Ada? Who is Bob? Who is Cy? Who is Dee?', { maxParts: 3 }),
    ).toEqual(['Who is Ada', 'Who is Bob', 'Who is Cy and Who is Dee']);
  });
});
