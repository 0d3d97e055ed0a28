import zlib from 'node:zlib';

/** An archive the reader cannot use: the caller answers 400 naming the file. */
export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated (nothing else is read). */
  method: number;
  compressedSize: number;
  /** The uncompressed size the central directory states; Infinity for a ZIP64 one (over any cap). */
  declaredSize: number;
  /** Where the entry's local header starts. */
  offset: number;
  encrypted: boolean;
}

export interface ZipDirectory {
  entries: ZipEntry[];
  /** The sum of every entry's declared uncompressed size. */
  declaredSize: number;
  /** An entry by its path; a second entry of the same path is ignored. */
  get(name: string): ZipEntry | undefined;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * The central directory of a zip held in memory (an XLSX upload, at most UPLOAD_MAX_MB): every entry with the sizes
 * it declares, read before anything is unpacked. ZIP64 sizes count as infinite: no lead file needs them.
 */
export function readZipDirectory(zip: Buffer): ZipDirectory {
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ZipError('no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  const size = zip.readUInt32LE(end + 12);
  const start = zip.readUInt32LE(end + 16);
  if (start + size > end) throw new ZipError('central directory out of bounds');

  const entries: ZipEntry[] = [];
  const byName = new Map<string, ZipEntry>();
  let declaredSize = 0;
  let p = start;
  for (let k = 0; k < count; k++) {
    if (p + 46 > end || zip.readUInt32LE(p) !== CENTRAL) throw new ZipError('broken central directory');
    const nameLength = zip.readUInt16LE(p + 28);
    const next = p + 46 + nameLength + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
    if (next > end) throw new ZipError('broken central directory');
    const stated = zip.readUInt32LE(p + 24);
    const entry: ZipEntry = {
      name: zip.toString('utf8', p + 46, p + 46 + nameLength),
      method: zip.readUInt16LE(p + 10),
      compressedSize: zip.readUInt32LE(p + 20),
      declaredSize: stated === 0xffffffff ? Infinity : stated,
      offset: zip.readUInt32LE(p + 42),
      encrypted: (zip.readUInt16LE(p + 8) & 1) === 1,
    };
    entries.push(entry);
    if (!byName.has(entry.name)) byName.set(entry.name, entry);
    declaredSize += entry.declaredSize;
    p = next;
  }
  return { entries, declaredSize, get: (name) => byName.get(name) };
}

/**
 * Counts the bytes unpacked from one workbook against its cap; `take` throws `over()` past it. The declared sizes
 * are checked first, but they can lie: this counts what inflating really gives.
 */
export class UnpackBudget {
  used = 0;
  constructor(
    readonly max: number,
    readonly over: () => Error,
  ) {}

  take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.max) throw this.over();
  }
}

const CHUNK = 16 * 1024;

/**
 * The unpacked bytes of an entry, 16 kB at a time, each counted against the budget before it is given. Inflating
 * runs on libuv's thread pool and waits for the reader (zlib stops writing into a full buffer), so at most a chunk
 * or two exist at once, whatever the ratio; stopping early (a `return`, a throw) destroys the inflater.
 */
export async function* entryBytes(zip: Buffer, entry: ZipEntry, budget: UnpackBudget): AsyncGenerator<Buffer> {
  const at = entry.offset;
  if (entry.encrypted || at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) throw new ZipError('bad entry');
  const from = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const to = from + entry.compressedSize;
  if (to > zip.length) throw new ZipError('entry out of bounds');
  const data = zip.subarray(from, to);
  if (entry.method === 0) {
    for (let p = 0; p < data.length; p += CHUNK) {
      const chunk = data.subarray(p, p + CHUNK);
      budget.take(chunk.length);
      yield chunk;
    }
    return;
  }
  if (entry.method !== 8) throw new ZipError(`compression method ${entry.method}`);
  const inflate = zlib.createInflateRaw({ chunkSize: CHUNK });
  inflate.end(data);
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      budget.take(chunk.length);
      yield chunk;
    }
  } finally {
    inflate.destroy();
  }
}
