/**
 * A command line the runner cannot act on (unknown option, bad value). The CLI prints its message
 * with a pointer to the command's help and exits 2.
 */
export class UsageError extends Error {
  /** The command whose help to point at, if any. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.name = new.target.name;
    this.command = command;
  }
}
