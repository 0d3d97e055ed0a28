import type { Readable } from 'node:stream';
import { HttpError } from '../../../platform/http/errors.js';

/** The file stream of @fastify/multipart (busboy): `truncated` once more than the fileSize limit arrived. */
export type UploadFileStream = Readable & { truncated?: boolean };

/**
 * The bytes of an uploaded file as they arrive. busboy stops the file at the size limit and marks it truncated: that
 * is answered 413 the moment it happens, while the file is being parsed, not after it was stored. Whatever ends the
 * parse (its end, an error, a refusal), `release` lets the rest of the request flow on (busboy discards it), so the
 * answer reaches the client instead of a stalled connection.
 */
export class Upload {
  private readonly iterator: AsyncIterator<Buffer>;
  /** Settles when busboy passes the size limit: it says so at once, while the file's end waits for its part's end. */
  private readonly overLimit: Promise<never>;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  bytes = 0;

  constructor(
    private readonly file: UploadFileStream,
    readonly name: string,
    readonly mimeType: string,
    private readonly maxMb: number,
  ) {
    this.iterator = file.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
    this.overLimit = new Promise<never>((_, reject) => {
      file.once('limit', () => reject(new HttpError(413, 'upload_too_large', { max: this.maxMb })));
    });
    this.overLimit.catch(() => {}); // observed by next(); never an unhandled rejection
  }

  private async next(): Promise<Buffer | null> {
    let step: IteratorResult<Buffer>;
    try {
      step = await Promise.race([this.iterator.next(), this.overLimit]);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      // The client went away or the multipart body broke off.
      throw new HttpError(400, 'upload_malformed', { reason: err instanceof Error ? err.message : 'stream error' });
    }
    if (step.done) {
      if (this.file.truncated) throw new HttpError(413, 'upload_too_large', { max: this.maxMb });
      return null;
    }
    this.bytes += step.value.length;
    return step.value;
  }

  /** The first `n` bytes (fewer when the file is shorter); they are still given by `chunks`. */
  async peek(n: number): Promise<Buffer> {
    while (this.headBytes < n) {
      const chunk = await this.next();
      if (!chunk) break;
      this.head.push(chunk);
      this.headBytes += chunk.length;
    }
    return Buffer.concat(this.head).subarray(0, n);
  }

  /** Every chunk of the file, in order, from the first byte. */
  async *chunks(): AsyncGenerator<Buffer> {
    while (this.head.length > 0) {
      const chunk = this.head.shift()!;
      this.headBytes -= chunk.length;
      yield chunk;
    }
    for (;;) {
      const chunk = await this.next();
      if (!chunk) return;
      yield chunk;
    }
  }

  /** The whole file in memory (the legacy XLS reader needs it), counted against the limit as it arrives. */
  async buffer(): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.chunks()) parts.push(chunk);
    return Buffer.concat(parts);
  }

  /** Let the rest of the request body flow (and be discarded) whatever the parse did with it. */
  release(): void {
    void this.iterator.return?.();
    if (!this.file.readableEnded) this.file.resume();
  }
}
