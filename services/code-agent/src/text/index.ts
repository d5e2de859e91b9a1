/** Excerpts of long texts (programs' output, tasks) for status messages, results and prompts. */
export { head, shorten, tail } from './excerpts';
