// A request passed on to another worker through its service binding (the auth host's verification API, the fleet's
// session endpoints).

/**
 * Sends `request` to `to` with its body read here first (within the body limit, which the caller's middleware
 * applied). Passed on as the client's stream, a body the other worker answers without reading (a 415, a 405) was
 * still being pumped from the client after the answer went out, which workerd reports as an uncaught exception
 * ("Can't read from request stream after response has been sent").
 */
export async function forwardRequest(to: Fetcher, request: Request): Promise<Response> {
  if (request.body === null) return to.fetch(request);
  return to.fetch(new Request(request, { body: await request.arrayBuffer() }));
}
