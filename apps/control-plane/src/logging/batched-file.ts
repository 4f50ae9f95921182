import { write } from 'node:fs';

/**
 * Lines appended to an open file in batches: they gather in memory and go out in one write once
 * `batchChars` characters have gathered, or when flushed; one write at a time, in order. Cheaper
 * per line than a general stream, which measures every line's bytes: the access log writes a line
 * per request.
 */
export class BatchedFile {
  // One string, appended to: cheaper than an array joined at the end.
  private text = '';
  private writing: Promise<void> | null = null;

  constructor(
    private readonly fd: number,
    private readonly batchChars: number,
    private readonly onError: (error: Error) => void,
  ) {}

  write(line: string): void {
    this.text += line;
    if (this.text.length >= this.batchChars && this.writing === null) void this.flush();
  }

  /** Writes out what has gathered, after the write under way; resolves once it is in the file. */
  flush(): Promise<void> {
    if (this.writing !== null) return this.writing.then(() => this.flush());
    if (this.text === '') return Promise.resolve();
    const bytes = Buffer.from(this.text);
    this.text = '';
    this.writing = writeAll(this.fd, bytes).then(
      () => void (this.writing = null),
      (error: Error) => {
        this.writing = null;
        this.onError(error);
      },
    );
    return this.writing;
  }
}

/** All of the bytes, however many writes the file takes for them. */
function writeAll(fd: number, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const from = (offset: number) =>
      write(fd, bytes, offset, bytes.length - offset, null, (error, written) => {
        if (error) return reject(error);
        if (offset + written < bytes.length) return from(offset + written);
        resolve();
      });
    from(0);
  });
}
