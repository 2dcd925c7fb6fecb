/**
 * The SSRF rule of webhook deliveries: which URLs and which resolved addresses a delivery may go to. Checked on the URL
 * at creation, and on every address its host name resolves to at each delivery (lambdas/webhooks/http-sender.ts).
 */
import { BlockList, isIP } from 'node:net';
import { badRequest } from './errors';

/** Addresses a delivery may never reach (the AWS form always; locally with TEMPMAIL_WEBHOOK_ALLOW_PRIVATE=0). */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the instance metadata address 169.254.169.254 among them
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) FORBIDDEN.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['2002::', 16], // 6to4: wraps any IPv4 address, private ones included
  ['fc00::', 7], // unique local (the instance metadata's IPv6 address fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) FORBIDDEN.addSubnet(net, bits, 'ipv6');
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/** The dotted IPv4 address of two IPv6 hextets. */
const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** An address as an IP literal: without a URL's brackets and an IPv6 zone (%eth0). */
const bareAddress = (address: string) => address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');

/** A URL's host as an address: without the brackets of an IPv6 literal. */
export const urlHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** The IPv4 address an IPv6 one wraps (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d), if any. */
function embeddedIpv4(address: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return null;
  return m[1] ?? ipv4Of(parseInt(m[2], 16), parseInt(m[3], 16));
}

/**
 * Never reached, not even where private destinations are allowed (the local form's default, so that a webhook or a
 * link check can reach a service on this machine or its network): link-local addresses, where a cloud machine's
 * instance metadata answers (169.254.169.254; fd00:ec2::254 on AWS's IPv6).
 */
const NEVER = new BlockList();
NEVER.addSubnet('169.254.0.0', 16, 'ipv4');
NEVER.addSubnet('fe80::', 10, 'ipv6');
NEVER.addAddress('fd00:ec2::254', 'ipv6');

/** The 8 hextets of an IPv6 address (a dotted IPv4 tail counted as two), or null when it is not one. */
function hextets(address: string): number[] | null {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = dotted ? `${address.slice(0, dotted.index)}${((+dotted[1] << 8) | +dotted[2]).toString(16)}:${((+dotted[3] << 8) | +dotted[4]).toString(16)}` : address;
  const [head, tail, extra] = text.split('::');
  if (extra !== undefined) return null;
  const parse = (part: string) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const [h, t] = [parse(head), parse(tail ?? '')];
  const all = tail === undefined ? h : [...h, ...Array<number>(Math.max(0, 8 - h.length - t.length)).fill(0), ...t];
  return all.length === 8 && all.every((x) => x >= 0 && x <= 0xffff) ? all : null;
}

/**
 * The IPv4 address an IPv6 one carries to an IPv4 host, in any form a route may honour: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48, in the last 32 bits) and 6to4
 * (2002:AABB:CCDD::/48).
 */
function carriedIpv4(address: string): string | null {
  const x = hextets(address);
  if (!x) return null;
  if (x.slice(0, 5).every((h) => h === 0) && (x[5] === 0xffff || x[5] === 0)) return ipv4Of(x[6], x[7]);
  if (x[0] === 0x64 && x[1] === 0xff9b) return ipv4Of(x[6], x[7]);
  if (x[0] === 0x2002) return ipv4Of(x[1], x[2]);
  return null;
}

/**
 * Why an outbound request (a webhook delivery, a link check) may not go to an address, or null when it may: with
 * private destinations allowed, only the link-local ones are refused; otherwise every non-public one (forbiddenAddress).
 */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  if (!allowPrivate) return forbiddenAddress(address);
  const bare = bareAddress(address);
  const family = isIP(bare);
  if (family === 0) return `not an IP address: ${address}`;
  const v4 = family === 6 ? carriedIpv4(bare) : bare;
  const never = (v4 !== null && NEVER.check(v4, 'ipv4')) || (family === 6 && NEVER.check(bare, 'ipv6'));
  return never ? `${address} is a link-local or instance metadata address, never reached` : null;
}

/** Why an address may not receive deliveries, or null when it may (a public unicast address). */
export function forbiddenAddress(address: string): string | null {
  const bare = bareAddress(address);
  const family = isIP(bare);
  if (family === 0) return `not an IP address: ${address}`;
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4) return forbiddenAddress(v4);
    if (FORBIDDEN.check(bare, 'ipv6') || !GLOBAL_UNICAST_V6.check(bare, 'ipv6')) return `${address} is a loopback, private, link-local, unique-local, multicast or reserved address`;
    return null;
  }
  return FORBIDDEN.check(bare, 'ipv4') ? `${address} is a loopback, private, link-local, multicast or reserved address` : null;
}

/** Why a URL's host is refused when it is an IP literal (refusedAddress), checked before any DNS; null for a name. */
export function refusedLiteral(url: URL, allowPrivate: boolean): string | null {
  const host = urlHost(url);
  return isIP(host) ? refusedAddress(host, allowPrivate) : null;
}

export const MAX_URL_LENGTH = 2048;

/**
 * The checks on a URL itself (before any DNS): https only and no forbidden IP literal, unless private
 * destinations are allowed (the local form's default: then only a link-local literal is refused). Throws 400. The host name's addresses are checked at
 * creation and again at every delivery (DNS may change), by the sender.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw badRequest(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('url must be an absolute http(s) URL');
  if (url.username || url.password) throw badRequest('url must not carry credentials; authenticate deliveries by their signature');
  if (url.hash) throw badRequest('url must not have a fragment');
  // Again as it is stored and sent: percent-encoding makes each non-ASCII character up to 9 (2,000 × "é" was 12 KB).
  if (url.href.length > MAX_URL_LENGTH) throw badRequest(`url must be at most ${MAX_URL_LENGTH} characters once encoded (${url.href.length})`);
  if (!allowPrivate && url.protocol !== 'https:') throw badRequest('url must use https');
  const why = refusedLiteral(url, allowPrivate);
  if (why) throw badRequest(`url refused: ${why}`);
  return url;
}
