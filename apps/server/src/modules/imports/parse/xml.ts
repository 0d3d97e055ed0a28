/** Malformed XML in a workbook part: the caller answers 400 naming the file. */
export class XmlError extends Error {}

/** What a reader of a workbook part receives from the scanner. */
export interface XmlHandler {
  /** An element begins: its local name (no namespace prefix) and its attributes as written (read with `attribute`). */
  open(name: string, attributes: string): void;
  close(name: string): void;
  /** Text of the current element in pieces, entities decoded; only called while `wantsText` is true. */
  text(piece: string): void;
  readonly wantsText: boolean;
}

/** The longest start tag taken (a sheet's tags are a few dozen bytes; anything this long is not a workbook). */
const TAG_MAX = 64 * 1024;

/**
 * A streaming scanner for the XML of workbook parts (SpreadsheetML). Unlike a general parser it keeps nothing a
 * file can make large: text is handed on in pieces only while the reader wants it, comments and processing
 * instructions are skipped without being kept, a start tag longer than 64 kB is refused, the nesting is a depth
 * count, and a DOCTYPE (entity declarations) is refused outright. So memory stays at one chunk and one tag, whatever
 * the part holds; the time is linear in its size.
 */
export class XmlScanner {
  private carry = '';
  private mode: 'text' | 'comment' | 'cdata' | 'pi' = 'text';
  private depth = 0;

  constructor(private readonly handler: XmlHandler) {}

  write(chunk: string): void {
    const s = this.carry ? this.carry + chunk : chunk;
    this.carry = '';
    const n = s.length;
    let i = 0;
    while (i < n) {
      if (this.mode === 'comment' || this.mode === 'pi') {
        const close = this.mode === 'comment' ? '-->' : '?>';
        const end = s.indexOf(close, i);
        if (end < 0) {
          this.carry = s.slice(Math.max(i, n - close.length + 1));
          return;
        }
        i = end + close.length;
        this.mode = 'text';
        continue;
      }
      if (this.mode === 'cdata') {
        const end = s.indexOf(']]>', i);
        const stop = end < 0 ? Math.max(i, n - 2) : end;
        this.emit(s.slice(i, stop), false);
        if (end < 0) {
          this.carry = s.slice(stop);
          return;
        }
        i = end + 3;
        this.mode = 'text';
        continue;
      }
      const lt = s.indexOf('<', i);
      if (lt < 0) {
        // Text to the end of the chunk; an entity cut by the chunk's end waits for the rest.
        const amp = this.handler.wantsText ? s.lastIndexOf('&') : -1;
        const held = amp >= i && amp > n - 12 && s.indexOf(';', amp) < 0 ? amp : n;
        this.emit(s.slice(i, held), true);
        this.carry = s.slice(held);
        return;
      }
      if (lt > i) this.emit(s.slice(i, lt), true);
      const next = s.charCodeAt(lt + 1);
      // '<!--' and '<![CDATA[' are told apart once enough of them has arrived.
      const cdata = s.startsWith('<![', lt);
      if (lt + 1 >= n || (next === 0x21 /* ! */ && n - lt < (cdata ? 9 : 4))) {
        this.carry = s.slice(lt);
        return;
      }
      if (next === 0x3f /* ? */) {
        this.mode = 'pi';
        i = lt + 2;
        continue;
      }
      if (next === 0x21) {
        if (s.startsWith('<!--', lt)) {
          this.mode = 'comment';
          i = lt + 4;
        } else if (s.startsWith('<![CDATA[', lt)) {
          this.mode = 'cdata';
          i = lt + 9;
        } else throw new XmlError('a DOCTYPE or other declaration');
        continue;
      }
      // A tag: up to the first '>' outside a quoted attribute value.
      let quote = 0;
      let j = lt + 1;
      for (; j < n; j++) {
        const c = s.charCodeAt(j);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x3e) break;
      }
      if (j >= n) {
        if (n - lt > TAG_MAX) throw new XmlError('a tag longer than 64 kB');
        this.carry = s.slice(lt);
        return;
      }
      this.tag(s.slice(lt + 1, j));
      i = j + 1;
    }
  }

  /** After the last chunk: a part cut short (an open element, a tag or comment not closed) is malformed. */
  end(): void {
    if (this.carry || this.mode !== 'text' || this.depth !== 0) throw new XmlError('the part ends too early');
  }

  private tag(body: string): void {
    if (body.charCodeAt(0) === 0x2f /* / */) {
      if (--this.depth < 0) throw new XmlError('a closing tag without its start');
      this.handler.close(localName(body.slice(1).trim()));
      return;
    }
    const selfClosing = body.charCodeAt(body.length - 1) === 0x2f;
    const inner = selfClosing ? body.slice(0, -1) : body;
    const space = inner.search(/\s/);
    const name = localName(space < 0 ? inner : inner.slice(0, space));
    if (!name) throw new XmlError('a tag without a name');
    this.handler.open(name, space < 0 ? '' : inner.slice(space));
    if (selfClosing) this.handler.close(name);
    else this.depth += 1;
  }

  private emit(piece: string, decode: boolean): void {
    if (piece && this.handler.wantsText) this.handler.text(decode ? decodeEntities(piece) : piece);
  }
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

const ENTITY = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML's five named entities and character references; anything else is left as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (_, e: string) => {
    const named = NAMED[e];
    if (named !== undefined) return named;
    const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

const ATTRIBUTE = new Map<string, RegExp>();

/** The value of an attribute (by its local name, whatever its prefix) in the attributes `open` gave. */
export function attribute(attributes: string, name: string): string | undefined {
  let pattern = ATTRIBUTE.get(name);
  if (!pattern) {
    pattern = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`);
    ATTRIBUTE.set(name, pattern);
  }
  const match = pattern.exec(attributes);
  if (!match) return undefined;
  return decodeEntities(match[1] ?? match[2] ?? '');
}
