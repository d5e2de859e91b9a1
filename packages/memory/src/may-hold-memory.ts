/** A first-person statement: "I", "I'm", "my", "call me", "we work", "our project". */
const FIRST_PERSON =
  /\b(?:i|i['’]m|im|i['’]ve|i['’]d|i['’]ll|my|mine|myself)\b|\bcall\s+me\b|\b(?:we|our)\s+(?:work|company|project|team|role)\b/i;

/** A preference about answers: length, tone, language. */
const PREFERENCE =
  /\b(?:brief|briefly|concise|short|shorter|terse|succinct|detailed|detail|thorough|in-depth|formal|informal|casual|friendly|professional|tone|language|prefer|preferred|please\s+be|keep\s+it)\b|\b(?:answer|reply|respond|write|speak|talk)\w*\s+(?:to\s+me\s+)?(?:only\s+)?in\b/i;

/**
 * Whether a message may hold something to remember: a first-person statement or a preference
 * about answers. Most requests ("Search the web for news about A2A") have neither, and the
 * extractor then skips its LLM call: they cost nothing extra. Deliberately generous — a false
 * "yes" costs one small call, a false "no" loses a fact.
 *
 * @example
 * mayHoldMemory('Search the web for news about A2A'); // false
 * mayHoldMemory('I lead the data team at Kestrel');   // true
 */
export function mayHoldMemory(message: string): boolean {
  return FIRST_PERSON.test(message) || PREFERENCE.test(message);
}
