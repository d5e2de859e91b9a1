import type { OutputStream } from '../terminal';

/** An output stream (not a terminal) that keeps what is written, for a test to read as `text`. */
export function collector(): OutputStream & { text: string } {
  return {
    text: '',
    isTTY: false,
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}
