/**
 * A stand-in for the internet at the network edge of the template form's functions (test only): loaded by
 * lambda-runtime.js before the bundle when start:aws is given TEMPMAIL_TEMPLATE_INTERNET, never otherwise.
 *
 * The deployed webhook sender delivers only to https URLs whose host resolves to public addresses (its SSRF rules,
 * lambdas/core/webhooks.ts), and a test's receiver listens on loopback. Rather than relax those rules in the bundle,
 * this module changes what lies below it, as the internet would look from Lambda:
 * - DNS: each named host resolves to one public address (PUBLIC_ADDRESS), through dns.lookup and
 *   dns.promises.lookup, so the bundle's own checks see a public address and pass;
 * - the socket: a connection to a named host that resolved to that address is made to the host's loopback target
 *   instead (address and port), after the bundle's lookup hook has run its checks; TLS is unchanged, so the
 *   receiver's certificate must be valid for the name and trusted (its CA through NODE_EXTRA_CA_CERTS, which
 *   start:aws sets from TEMPMAIL_TEMPLATE_INTERNET_CA);
 * - nothing else exists: a connection to any other non-loopback address fails with ENETUNREACH, so no test traffic
 *   leaves the machine, whatever a test's URL names.
 * The local endpoints (DynamoDB, S3, SQS, the control plane) are on loopback and untouched.
 */
'use strict';
const dns = require('node:dns');
const net = require('node:net');

/** What DNS answers for every named host: a public unicast address, never connected to (see above). */
const PUBLIC_ADDRESS = '203.0.114.80';

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
const isLoopback = (address) => {
  const bare = String(address).replace(/^\[|\]$/g, '').replace(/^::ffff:(?=\d+\.)/i, '');
  const family = net.isIP(bare);
  return family !== 0 && loopback.check(bare, family === 6 ? 'ipv6' : 'ipv4');
};

const unreachable = (address) => Object.assign(new Error(`connect ENETUNREACH ${address} (the template form's internet stand-in holds only its named hosts)`), { code: 'ENETUNREACH', syscall: 'connect', address });

/** `hosts`: { 'hooks.example': { host: '127.0.0.1', port: 8443 } }. */
function install(hosts) {
  const named = new Map(Object.entries(hosts).map(([name, target]) => [name.toLowerCase(), target]));
  const targetOf = (hostname) => named.get(String(hostname).toLowerCase().replace(/\.$/, ''));

  const lookup = dns.lookup;
  dns.lookup = function standInLookup(hostname, options, callback) {
    if (typeof options === 'function') [callback, options] = [options, {}];
    if (!targetOf(hostname)) return lookup.call(dns, hostname, options, callback);
    const all = typeof options === 'object' && options !== null && options.all;
    process.nextTick(() => (all ? callback(null, [{ address: PUBLIC_ADDRESS, family: 4 }]) : callback(null, PUBLIC_ADDRESS, 4)));
  };
  const promisesLookup = dns.promises.lookup;
  dns.promises.lookup = async function standInPromisesLookup(hostname, options) {
    if (!targetOf(hostname)) return promisesLookup.call(dns.promises, hostname, options);
    const entry = { address: PUBLIC_ADDRESS, family: 4 };
    return typeof options === 'object' && options !== null && options.all ? [entry] : entry;
  };

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function standInConnect(...args) {
    const normalized = Array.isArray(args[0]) ? args[0] : net._normalizeArgs(args);
    const options = normalized[0];
    if (options.path || options.host === undefined || options.host === null) return connect.apply(this, args);
    const host = String(options.host).replace(/^\[|\]$/g, '');
    if (net.isIP(host)) {
      if (isLoopback(host)) return connect.apply(this, args);
      process.nextTick(() => this.destroy(unreachable(host)));
      return this;
    }
    const target = targetOf(host);
    const resolve = options.lookup || dns.lookup;
    // After the caller's own lookup (and its checks): the named host's public address becomes its loopback target;
    // any other address that is not loopback is unreachable.
    options.lookup = (hostname, lookupOptions, callback) =>
      resolve(hostname, lookupOptions, (error, address, family) => {
        if (error) return callback(error, address, family);
        const route = (a) => (target && a === PUBLIC_ADDRESS ? target.host : isLoopback(a) ? a : null);
        const list = Array.isArray(address) ? address : [{ address, family }];
        const routed = list.map((entry) => ({ address: route(entry.address), family: net.isIP(route(entry.address) || '') || entry.family }));
        const bad = list.find((entry, i) => routed[i].address === null);
        if (bad) return callback(unreachable(bad.address), '', 4);
        return Array.isArray(address) ? callback(null, routed) : callback(null, routed[0].address, routed[0].family);
      });
    if (target) options.port = target.port;
    return connect.call(this, normalized);
  };
}

module.exports = { install, PUBLIC_ADDRESS };
