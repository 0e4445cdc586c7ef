/**
 * Errors a user can act on. The CLI prints `message` as one line (plus `hint`
 * when present) and exits with `exitCode`; stacks only with --verbose or DEBUG=kop.
 */
export class KopError extends Error {
  readonly exitCode: number = 1;
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags or arguments: exit code 2, like commander's own usage errors. */
export class UsageError extends KopError {
  override readonly exitCode: number = 2;
}

/** A file the command would overwrite already exists and --force was not given. */
export class FileExistsError extends KopError {
  constructor(readonly path: string) {
    super(`${path} already exists`, 'pass --force to overwrite it');
  }
}
