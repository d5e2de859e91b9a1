/** Text helpers shared by retrieval and answering: sentences, terms, stopwords, shortening. */
export {
  contentTerms,
  isStopword,
  normalizeTerm,
  removePhrases,
  shorten,
  splitSentences,
  words,
} from './text-units';
export { splitQuestion } from './split-question';
export { documentWording } from './document-wording';
