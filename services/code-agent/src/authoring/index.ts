/** Writing the program: by the LLM from the task and earlier results, or the task's own code offline. */
export { createCodeWriter, OFFLINE_NO_CODE } from './create-code-writer';
export type {
  CodeSource,
  CodeWriter,
  CreateCodeWriterOptions,
  WrittenCode,
} from './create-code-writer';
export type { CodeRequest, FailedAttempt } from './code-request';
export { extractPython, fencedBlocks } from './extract-python';
export {
  CODE_INSTRUCTIONS,
  INPUTS_FILENAME,
  renderCodePrompt,
  writeCodeWithLlm,
} from './write-code-with-llm';
export type { WriteCodeWithLlmOptions } from './write-code-with-llm';
