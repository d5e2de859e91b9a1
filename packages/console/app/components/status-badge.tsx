import { stateWords } from '../format';

/** A state in words, coloured by what it means (the words carry the meaning; colour only helps). */
export function StatusBadge({ state }: { state: string }) {
  return <span class={`badge badge-${state}`}>{stateWords(state)}</span>;
}
