/** The BlobStore's (and the embedded store's signed downloads') part of the storage contract (contract.ts). */
import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import type { Stores } from '../../lambdas/core/ports';
import { FILE_BLOB_MIN_BYTES } from '../../lambdas/store/sqlite-blob-files';
import { unique } from './records';

export function blobContract(storesOf: () => Stores): void {
  describe('blobs', () => {
    let stores: Stores;
    beforeAll(() => {
      stores = storesOf();
    });

    /** A download link's bytes: the embedded store serves its own links (the local gateway streams them), S3 its. */
    async function fetched(url: URL): Promise<Buffer> {
      if (!stores.downloads) return Buffer.from(await (await fetch(url)).arrayBuffer());
      const link = stores.downloads.verify(url.pathname, url.searchParams, Date.now());
      if (link === 'forbidden') throw new Error(`refused: ${url}`);
      const opened = await stores.downloads.openStream(link.key);
      const bytes = await buffer(opened!.body);
      expect(bytes.length).toBe(opened!.size);
      return bytes;
    }

    it('puts an object given as chunks (a large body made in slices) as their bytes in order, small or file-sized', async () => {
      const prefix = `contract/${unique('k')}/`;
      const small = [Buffer.from('{"a":'), Buffer.from('"\u00e9"'), Buffer.alloc(0), Buffer.from('}')];
      await stores.blobs.put(`${prefix}small`, small, 'application/json');
      expect(await stores.blobs.get(`${prefix}small`)).toEqual(Buffer.concat(small));
      const large = [randomBytes(FILE_BLOB_MIN_BYTES), randomBytes(1000), randomBytes(FILE_BLOB_MIN_BYTES)];
      await stores.blobs.put(`${prefix}large`, large, 'application/json');
      expect((await stores.blobs.get(`${prefix}large`))!.equals(Buffer.concat(large))).toBe(true);
      await stores.blobs.deletePrefix(prefix);
    });

    it('reads a JSON object with its long strings cut (a body object as a read takes it), small or file-sized', async () => {
      const prefix = `contract/${unique('j')}/`;
      const small = { text: 'abcdef', html: '', n: 3, list: ['x'], none: null };
      await stores.blobs.put(`${prefix}small`, JSON.stringify(small), 'application/json');
      expect(await stores.blobs.getJson(`${prefix}small`, 6)).toEqual({ value: small, cut: [] });
      expect(await stores.blobs.getJson(`${prefix}small`, 4)).toEqual({ value: { ...small, text: 'abcd' }, cut: ['text'] });
      // File-sized (the embedded store parses it on its JSON reader's thread): a surrogate pair is never split.
      const text = `${'é'.repeat(FILE_BLOB_MIN_BYTES)}😀tail`;
      const large = { text, html: `<p>${'\\"'.repeat(1000)}</p>`, attachments: [{ id: 'att_1', filename: 'a"b.txt' }], parse_error: null };
      await stores.blobs.put(`${prefix}large`, JSON.stringify(large), 'application/json');
      expect(await stores.blobs.getJson(`${prefix}large`, FILE_BLOB_MIN_BYTES * 4)).toEqual({ value: large, cut: [] });
      expect(await stores.blobs.getJson(`${prefix}large`, FILE_BLOB_MIN_BYTES + 1)).toEqual({ value: { ...large, text: 'é'.repeat(FILE_BLOB_MIN_BYTES) }, cut: ['text'] });
      expect(await stores.blobs.getJson(`${prefix}missing`, 10)).toBeNull();
      await stores.blobs.deletePrefix(prefix);
      expect(await stores.blobs.getJson(`${prefix}large`, 10)).toBeNull();
    });

    it('puts, reads, heads (with metadata), copies, lists by prefix and deletes', async () => {
      const prefix = `contract/${unique('b')}/`;
      const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
      await stores.blobs.put(`${prefix}a`, bytes, 'application/octet-stream', { 'tempmail-envelope': 'abc' });
      await stores.blobs.put(`${prefix}b`, 'text', 'text/plain');
      expect(await stores.blobs.get(`${prefix}a`)).toEqual(bytes);
      expect(await stores.blobs.head(`${prefix}a`)).toEqual({ 'tempmail-envelope': 'abc' });
      expect(await stores.blobs.head(`${prefix}missing`)).toBeNull();
      expect(await stores.blobs.get(`${prefix}missing`)).toBeNull();
      await stores.blobs.copy(`${prefix}a`, `${prefix}c/copy`);
      expect(await stores.blobs.get(`${prefix}c/copy`)).toEqual(bytes);
      expect(await stores.blobs.list(prefix)).toEqual([`${prefix}a`, `${prefix}b`, `${prefix}c/copy`]);
      await stores.blobs.delete(`${prefix}b`);
      await stores.blobs.delete(`${prefix}b`); // deleting what is gone is fine
      expect(await stores.blobs.deletePrefix(`${prefix}c/`)).toBe(1);
      expect(await stores.blobs.list(prefix)).toEqual([`${prefix}a`]);
      expect(await stores.blobs.deletePrefix(prefix)).toBe(1);
      expect(await stores.blobs.list(prefix)).toEqual([]);
    });

    it('keeps large objects byte for byte: put, get, copy, replace, delete, and a download link serves them whole', async () => {
      // Larger than the embedded store keeps in a row: there it is a file in the data folder.
      const prefix = `contract/${unique('L')}/`;
      const big = randomBytes(FILE_BLOB_MIN_BYTES * 3 + 7);
      const other = randomBytes(FILE_BLOB_MIN_BYTES + 1);
      await stores.blobs.put(`${prefix}raw.eml`, big, 'message/rfc822', { note: 'big' });
      expect((await stores.blobs.get(`${prefix}raw.eml`))!.equals(big)).toBe(true);
      expect(await stores.blobs.head(`${prefix}raw.eml`)).toEqual({ note: 'big' });
      await stores.blobs.copy(`${prefix}raw.eml`, `${prefix}copy/raw.eml`);
      await stores.blobs.copy(`${prefix}raw.eml`, `${prefix}copy/raw.eml`); // onto itself again: still one object
      expect(await stores.blobs.head(`${prefix}copy/raw.eml`)).toEqual({ note: 'big' });
      // Replaced by another large object, then by a small one: each read gives the latest, the copy keeps the first.
      await stores.blobs.put(`${prefix}raw.eml`, other, 'message/rfc822');
      expect((await stores.blobs.get(`${prefix}raw.eml`))!.equals(other)).toBe(true);
      await stores.blobs.put(`${prefix}raw.eml`, 'small now', 'text/plain');
      expect((await stores.blobs.get(`${prefix}raw.eml`))!.toString()).toBe('small now');
      await stores.blobs.put(`${prefix}raw.eml`, big, 'message/rfc822');
      expect((await stores.blobs.get(`${prefix}copy/raw.eml`))!.equals(big)).toBe(true);
      const headers = { contentType: 'message/rfc822', contentDisposition: 'attachment; filename="m.eml"' };
      const url = new URL(await stores.blobs.presignGet(`${prefix}copy/raw.eml`, 60, headers));
      const served = await fetched(url);
      expect(served.equals(big)).toBe(true);
      await stores.blobs.delete(`${prefix}raw.eml`);
      expect(await stores.blobs.get(`${prefix}raw.eml`)).toBeNull();
      expect((await stores.blobs.get(`${prefix}copy/raw.eml`))!.equals(big)).toBe(true); // a copy outlives its source
      expect(await stores.blobs.deletePrefix(prefix)).toBe(1);
      expect(await stores.blobs.get(`${prefix}copy/raw.eml`)).toBeNull();
      await expect(stores.blobs.copy(`${prefix}raw.eml`, `${prefix}again`)).rejects.toMatchObject({ name: 'NoSuchKey' });
    });

    it('makes download links that serve the object with the headers they name', async () => {
      const key = `contract/${unique('d')}/att_1`;
      await stores.blobs.put(key, '<svg onload="alert(1)"/>', 'image/svg+xml');
      const headers = { contentType: 'application/octet-stream', contentDisposition: 'attachment; filename="x.svg"' };
      const url = new URL(await stores.blobs.presignGet(key, 60, headers));
      // The origin a page must allow to fetch the links (the viewer's CSP): the link's own.
      expect(await stores.blobs.downloadOrigin()).toBe(url.origin);
      if (stores.downloads) {
        // The embedded store signs its own links (the local gateway serves them: test/integration/downloads).
        const link = stores.downloads.verify(url.pathname, url.searchParams, Date.now());
        expect(link).toEqual({ key, headers });
        const opened = await stores.downloads.openStream(key);
        expect(opened?.size).toBe(24);
        expect((await buffer(opened!.body)).toString()).toBe('<svg onload="alert(1)"/>');
        const edited = new URL(url);
        edited.searchParams.set('disposition', 'inline');
        expect(stores.downloads.verify(edited.pathname, edited.searchParams, Date.now())).toBe('forbidden');
        expect(stores.downloads.verify(url.pathname, url.searchParams, Date.now() + 61_000)).toBe('forbidden');
        expect(await stores.downloads.openStream(`${key}-missing`)).toBeNull();
      } else {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe(headers.contentType);
        expect(res.headers.get('content-disposition')).toBe(headers.contentDisposition);
        expect(await res.text()).toBe('<svg onload="alert(1)"/>');
      }
    });
  });
}
