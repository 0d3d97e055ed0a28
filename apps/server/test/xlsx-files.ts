import zlib from 'node:zlib';

/** Lead files written by hand for the import tests: a zip of any parts, sizes and order, and XLSX workbooks. */

export interface ZipEntry {
  name: string;
  /** The entry's content, in pieces (a sheet of 60 MB need never be one string). */
  chunks: () => Iterable<string | Buffer>;
  /** The uncompressed size the zip's headers state; the real one when not given. */
  declaredSize?: number;
  /** zlib's level (9 unless given). */
  level?: number;
}

/** A zip of the entries in the order given (deflated, sizes and CRC in the headers). */
export function zip(entries: ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const out: Buffer[] = [];
    let crc = 0;
    let size = 0;
    for (const chunk of entry.chunks()) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      crc = zlib.crc32(bytes, crc);
      size += bytes.length;
      out.push(zlib.deflateRawSync(bytes, { level: entry.level ?? 9, finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    }
    out.push(Buffer.from([0x03, 0x00])); // an empty final block ends the deflate stream
    const data = Buffer.concat(out);
    const name = Buffer.from(entry.name);
    const fields = (b: Buffer, at: number) => {
      b.writeUInt16LE(20, at); // version needed
      b.writeUInt16LE(0, at + 2); // flags
      b.writeUInt16LE(8, at + 4); // deflate
      b.writeUInt32LE(0, at + 6); // time, date
      b.writeUInt32LE(crc >>> 0, at + 10);
      b.writeUInt32LE(data.length, at + 14);
      b.writeUInt32LE(entry.declaredSize ?? size, at + 18);
      b.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    fields(central, 6);
    central.writeUInt32LE(offset, 42);
    directory.push(central, name);
    parts.push(local, name, data);
    offset += local.length + name.length + data.length;
  }
  const cd = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

export interface SheetPart extends Pick<ZipEntry, 'declaredSize' | 'level'> {
  name: string;
  /** The content of its <sheetData>, in pieces. */
  rows: () => Iterable<string>;
}

/**
 * An XLSX workbook stored as Excel stores it: the worksheets before the shared strings (so a streaming reader cannot
 * resolve a sheet's strings while it reads it). `sharedStrings` are the inner XML of each <si>; `stored` is the
 * order of the sheets' entries in the archive (the workbook's order by default).
 */
export function workbook(parts: { sheets: SheetPart[]; sharedStrings: string[]; stored?: number[] }): Buffer {
  const one = (s: string) => () => [s];
  const xml = '<?xml version="1.0" encoding="UTF-8"?>';
  const sheets = (parts.stored ?? parts.sheets.map((_, i) => i)).map((i) => {
    const sheet = parts.sheets[i]!;
    const { name: _, rows, ...entry } = sheet;
    return {
      name: `xl/worksheets/sheet${i + 1}.xml`,
      chunks: function* () {
        yield `${xml}<worksheet xmlns="${NS}"><sheetData>`;
        yield* rows();
        yield '</sheetData></worksheet>';
      },
      ...entry,
    };
  });
  return zip([
    {
      name: '[Content_Types].xml',
      chunks: one(
        `${xml}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
          '<Default Extension="xml" ContentType="application/xml"/></Types>',
      ),
    },
    {
      name: '_rels/.rels',
      chunks: one(
        `${xml}<Relationships xmlns="${PACKAGE_REL}">` +
          `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: 'xl/workbook.xml',
      chunks: one(
        `${xml}<workbook xmlns="${NS}" xmlns:r="${REL}"><sheets>` +
          parts.sheets.map((s, i) => `<sheet name="${s.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
          '</sheets></workbook>',
      ),
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      chunks: one(
        `${xml}<Relationships xmlns="${PACKAGE_REL}">` +
          parts.sheets
            .map(
              (_, i) =>
                `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
            )
            .join('') +
          `<Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ),
    },
    ...sheets,
    {
      name: 'xl/sharedStrings.xml',
      chunks: function* () {
        yield `${xml}<sst xmlns="${NS}" count="${parts.sharedStrings.length}">`;
        for (const item of parts.sharedStrings) yield `<si>${item}</si>`;
        yield '</sst>';
      },
    },
  ]);
}
