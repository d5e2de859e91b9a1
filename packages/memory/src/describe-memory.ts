import type { UserMemory } from './memory-schema';

/**
 * The memory as short sentences, one per fact or preference: what every agent's node input
 * carries (`memory: string[]`) and what the composer's prompt shows. Empty when nothing is known.
 *
 * @example
 * describeMemory(memory);
 * // ['The user’s name is Ada.', 'The user works at Kestrel.', 'The user prefers brief answers.']
 */
export function describeMemory(memory: UserMemory): string[] {
  const { facts, preferences } = memory;
  const lines: string[] = [];
  if (facts.name) lines.push(`The user’s name is ${facts.name.value}.`);
  if (facts.company) lines.push(`The user works at ${facts.company.value}.`);
  if (facts.jobTitle) lines.push(`The user’s job title is ${facts.jobTitle.value}.`);
  if (facts.projects) lines.push(`The user works on: ${facts.projects.value.join(', ')}.`);
  if (preferences.tone) lines.push(`The user prefers a ${preferences.tone.value} tone.`);
  if (preferences.detailLevel) {
    lines.push(`The user prefers ${preferences.detailLevel.value} answers.`);
  }
  if (preferences.language) lines.push(`The user wants answers in ${preferences.language.value}.`);
  return lines;
}
