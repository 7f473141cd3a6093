import { readFile } from 'node:fs/promises';
import { requireVendorVersion } from './vendor-version.mjs';

/** The @grpc/grpc-js release whose build/src/*.js this patch was checked against. */
export const VENDOR = { pkg: '@grpc/grpc-js', version: '1.14.7' };

const GRPC_JS_FILE = /@grpc[\\/]grpc-js[\\/]build[\\/]src[\\/][^\\/]+\.js$/;
const GRPC_IS_IPV6 = '(0, net_1.isIPv6)';
const IS_IP_6 = '((host) => (0, net_1.isIP)(host) === 6)';

/**
 * A grpc-js file's text with every isIPv6 call replaced (patch-lazy-requires.mjs applies it too:
 * esbuild runs one onLoad per file, so a file both patches edit gets both edits there).
 */
export function withIsIp6(src) {
  return src.replaceAll(GRPC_IS_IPV6, IS_IP_6);
}

/**
 * grpc-js asks net.isIPv6() of every address it connects to (subchannelAddressToString, pick-first).
 * Node's IPv6 expression is large: its first two runs cost ~12 ms, on an IPv4 address too.
 * net.isIP() tries the small IPv4 expression first, and `isIP(s) === 6` is `isIPv6(s)` (the two
 * sets are disjoint), so grpc-js calls that instead. The build fails if subchannel-address.js no
 * longer calls isIPv6 as expected.
 */
export const grpcIsIpv6 = {
  name: 'grpc-is-ipv6',
  setup(b) {
    requireVendorVersion('patch-grpc-is-ipv6.mjs', VENDOR.pkg, VENDOR.version);
    b.onLoad({ filter: GRPC_JS_FILE }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      if (/subchannel-address\.js$/.test(args.path) && !src.includes(GRPC_IS_IPV6))
        throw new Error(
          `${args.path}: grpc-js no longer calls ${GRPC_IS_IPV6} as scripts/build-cli/patch-grpc-is-ipv6.mjs expects`,
        );
      if (!src.includes(GRPC_IS_IPV6)) return undefined;
      return { contents: withIsIp6(src), loader: 'js' };
    });
  },
};
