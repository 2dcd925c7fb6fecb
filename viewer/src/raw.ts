/** Reading the raw MIME source in the browser: its header block, unfolded, for the headers tab. */

export interface Header {
  name: string;
  value: string;
}

/** The top-level headers of a raw message, in order (values as written: encoded words are not decoded). */
export function headersOf(raw: string): Header[] {
  const end = raw.search(/\r?\n\r?\n/);
  const block = end < 0 ? raw : raw.slice(0, end);
  const headers: Header[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && headers.length) headers[headers.length - 1].value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
    }
  }
  return headers;
}
