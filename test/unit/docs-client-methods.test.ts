/**
 * docs/API.md lists the client's methods; this keeps the list the client's own, so a method added to TempMailClient
 * (or removed) without the docs following fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TempMailClient } from '../../client/src/index';

it("docs/API.md's client method list is exactly TempMailClient's public methods", () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'API.md'), 'utf8');
  const list = /- Every endpoint is a method: ([\s\S]*?)\.\n/.exec(doc)?.[1] ?? '';
  const documented = [...list.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort();
  const source = fs.readFileSync(path.join(__dirname, '..', '..', 'client', 'src', 'index.ts'), 'utf8');
  const isPrivate = (name: string) => new RegExp(`^\\s*private\\s+(async\\s+)?${name}[<(]`, 'm').test(source) || name.startsWith('#');
  const methods = Object.getOwnPropertyNames(TempMailClient.prototype).filter((name) => name !== 'constructor' && !isPrivate(name)).sort();
  expect(methods.length).toBeGreaterThan(0);
  expect(documented).toEqual(methods);
});
