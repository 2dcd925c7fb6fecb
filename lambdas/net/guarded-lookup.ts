/**
 * The DNS lookup of outbound requests to URLs that users or strangers name (webhook deliveries,
 * lambdas/webhooks/http-sender.ts; link checks, lambdas/checks/link-probe.ts), stated once for both: the name is
 * resolved on the connection itself, every address it resolves to is checked (core/webhook-destinations.ts
 * refusedAddress) and the whole name refused when one fails, so the socket connects to an address that passed and a
 * name cannot be re-pointed between a check and its use.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { refusedAddress } from '../core/webhook-destinations';

/** A name refused for an address it resolves to (its message says which and why). */
export class RefusedAddress extends Error {}

/** dns.lookup, refusing the name when any address it resolves to is refused. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as dns.LookupAddress[];
      const bad = list.map((a) => refusedAddress(a.address, allowPrivate)).find(Boolean);
      if (bad || list.length === 0) return callback(new RefusedAddress(`${hostname} resolves to ${bad ?? 'no address'}`), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
