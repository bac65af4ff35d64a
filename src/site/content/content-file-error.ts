/** A content file that cannot be used; the loader turns it into a start-up error naming the file. */
export class ContentFileError extends Error {
  readonly file: string;

  constructor(file: string, problem: string) {
    super(problem);
    this.name = 'ContentFileError';
    this.file = file;
  }
}
