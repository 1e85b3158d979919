// The kit's version, as its package publishes it (packages/kit/package.json; test/kit/version.node.test.ts holds
// the two equal), and the User-Agent the kit names itself by where it calls the hosts, so an operator's logs can
// tell which kit, and which version of it, is asking.
export const KIT_VERSION = "0.2.1";
export const KIT_USER_AGENT = `open-oc-kit/${KIT_VERSION}`;

/**
 * The kit's request headers: the given ones, with `user-agent` outside a browser. A page does not set it: the
 * browser owns the header, and naming it would make a cross-origin read ask a preflight first.
 */
export function kitHeaders(headers: Record<string, string>): Record<string, string> {
  const inBrowser = (globalThis as { document?: unknown }).document !== undefined;
  return inBrowser ? headers : { "user-agent": KIT_USER_AGENT, ...headers };
}
